/**
 * The import's line reader against readline, which it replaced: the same lines (`\n`, `\r\n`,
 * a lone `\r`, a last line without a newline) whatever the block size, with blocks that cut a
 * `\r\n` pair or a UTF-8 character in two.
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { eachLine, lineBlocks } from '../../src/services/import/csv-lines';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function fileOf(content: Buffer | string): string {
  const file = path.join(dir, `f${n++}.csv`);
  writeFileSync(file, content);
  return file;
}

async function ours(file: string, blockBytes: number): Promise<string[]> {
  const lines: string[] = [];
  for await (const block of lineBlocks(file, blockBytes)) eachLine(block, (s, e) => lines.push(block.toString('utf8', s, e)));
  return lines;
}

async function readlines(file: string, highWaterMark: number): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(file, { highWaterMark }), crlfDelay: Infinity })) lines.push(line);
  return lines;
}

describe('the import line reader', () => {
  it.each([
    ['LF', 'a,1\nb,2\n', ['a,1', 'b,2']],
    ['CRLF', 'a,1\r\nb,2\r\n', ['a,1', 'b,2']],
    ['no final newline', 'a,1\nb,2', ['a,1', 'b,2']],
    ['CRLF without a final newline', 'a,1\r\nb,2', ['a,1', 'b,2']],
    ['a lone CR ends a line', 'a,1\rb,2\r', ['a,1', 'b,2']],
    ['CR CR LF', 'a\r\r\nb', ['a', '', 'b']],
    ['blank lines', '\n\na\n\r\n', ['', '', 'a', '']],
    ['an empty file', '', []],
    ['only a newline', '\n', ['']],
  ])('%s', async (_name, content, expected) => {
    const file = fileOf(content);
    for (const size of [1, 2, 3, 5, 64]) expect(await ours(file, size)).toEqual(expected);
    expect(await readlines(file, 64)).toEqual(expected);
  });

  it('reads a UTF-8 character cut by a block boundary whole, and bytes that are not UTF-8 as U+FFFD', async () => {
    const file = fileOf(Buffer.concat([Buffer.from('é€😀,1\n'), Buffer.from([0xe2, 0x82, 0x0a, 0xff, 0x41])]));
    for (const size of [1, 2, 3, 4, 7]) expect(await ours(file, size)).toEqual(await readlines(file, size));
  });

  it('gives the lines readline gives on generated files, at any block size', async () => {
    const unit = fc.constantFrom('a', ',', '1', ' ', '\r', '\n', '\r\n', 'é', '€', '😀', '\uFEFF');
    await fc.assert(
      fc.asyncProperty(fc.array(unit, { maxLength: 60 }), fc.integer({ min: 1, max: 16 }), async (parts, size) => {
        const file = fileOf(parts.join(''));
        expect(await ours(file, size)).toEqual(await readlines(file, size));
      }),
      { numRuns: 400 },
    );
  });

  it('reads a line longer than its block (a file without newlines) whole', async () => {
    const long = 'x'.repeat(10_000);
    expect(await ours(fileOf(`${long}\n${long}`), 1024)).toEqual([long, long]);
  });
});
