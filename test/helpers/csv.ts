import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-test-'));
let n = 0;

/** Write `lines` to a temporary CSV file and return its path. */
export function csvFile(lines: string[]): string {
  const file = path.join(dir, `f${n++}.csv`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** Write `content` to a temporary file exactly as given (no newline added): truncated or binary files. */
export function rawFile(content: string | Buffer): string {
  const file = path.join(dir, `r${n++}.csv`);
  writeFileSync(file, content);
  return file;
}
