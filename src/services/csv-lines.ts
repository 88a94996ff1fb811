/**
 * The lines of an imported file, read in blocks of bytes and split as `readline` splits them
 * (`\n`, `\r\n` and a lone `\r` each end a line; a last line without one counts): reading
 * line by line through readline, one string per line, cost more than validating the rows
 * (bench/README.md). Bytes are decoded only where a line needs it (csv-fast-path.ts reads the
 * common line from its bytes); `\r` and `\n` never occur inside a UTF-8 sequence, so a line
 * decodes alone as it would within the whole text.
 */
import { open } from 'node:fs/promises';

export const BLOCK_BYTES = 1 << 20;

const LF = 10;
const CR = 13;

/**
 * The file as blocks of whole lines (each ends with `\n`, but the file's last), in order.
 * A block is only valid until the next one is asked for: its buffer is reused.
 */
export async function* lineBlocks(file: string, blockBytes = BLOCK_BYTES): AsyncGenerator<Buffer> {
  const fh = await open(file, 'r');
  try {
    let buf = Buffer.allocUnsafe(blockBytes);
    // Bytes of an unfinished line carried over from the previous read.
    let have = 0;
    for (;;) {
      if (have === buf.length) {
        // A line longer than the buffer (a binary file without newlines): grow.
        const grown = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(grown, 0, 0, have);
        buf = grown;
      }
      const { bytesRead } = await fh.read(buf, have, buf.length - have, null);
      if (bytesRead === 0) {
        if (have > 0) yield buf.subarray(0, have);
        return;
      }
      const filled = have + bytesRead;
      const last = buf.lastIndexOf(LF, filled - 1);
      if (last < 0) {
        have = filled;
        continue;
      }
      yield buf.subarray(0, last + 1);
      buf.copy(buf, 0, last + 1, filled);
      have = filled - last - 1;
    }
  } finally {
    await fh.close();
  }
}

/** Calls `line(start, end)` for each line of a block, in order, without its line end. */
export function eachLine(block: Buffer, line: (start: number, end: number) => void): void {
  const n = block.length;
  let s = 0;
  let cr = block.indexOf(CR, 0);
  if (cr < 0) cr = n;
  while (s < n) {
    let segmentEnd = block.indexOf(LF, s);
    if (segmentEnd < 0) segmentEnd = n;
    // `\r\n` ends the segment's last line; every other `\r` ends a line of its own.
    const e = segmentEnd > s && block[segmentEnd - 1] === CR ? segmentEnd - 1 : segmentEnd;
    while (cr < e) {
      line(s, cr);
      s = cr + 1;
      cr = block.indexOf(CR, s);
      if (cr < 0) cr = n;
    }
    line(s, e);
    s = segmentEnd + 1;
    if (cr < s) {
      cr = block.indexOf(CR, s);
      if (cr < 0) cr = n;
    }
  }
}
