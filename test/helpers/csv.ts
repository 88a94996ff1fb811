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
