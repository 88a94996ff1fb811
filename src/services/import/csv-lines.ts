/**
 * Reading an imported CSV file: blocks of bytes split into lines as `readline` splits them
 * (`\n`, `\r\n` and a lone `\r`; a last line without one counts), blank lines skipped, the
 * header checked, each data line handed over as bytes, a refused line named `file:line: reason`.
 * Bytes are decoded only where a line needs it (csv-fast-path.ts reads the common line from its
 * bytes): `\r` and `\n` never occur inside a UTF-8 sequence, so a line decodes alone as it
 * would within the whole text; a string per line (readline) cost more than the validation.
 */
import { open } from 'node:fs/promises';
import { checkHeader, RowError, splitCsvLine } from '../../domain/csv-rows';
import { AppError } from '../../domain/errors';

export const BLOCK_BYTES = 1 << 20;
/**
 * The first read is smaller: an import's COPY starts once its first lines are read and checked,
 * and the server, the slower side of the pipe, should not wait for a whole block.
 */
const FIRST_READ_BYTES = 64 << 10;

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
    let first = true;
    for (;;) {
      if (have === buf.length) {
        // A line longer than the buffer (a binary file without newlines): grow.
        const grown = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(grown, 0, 0, have);
        buf = grown;
      }
      const room = first ? Math.min(FIRST_READ_BYTES, buf.length) : buf.length - have;
      first = false;
      const { bytesRead } = await fh.read(buf, have, room, null);
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

/** Rows counted and their first and last time (ms), as a file is read. */
export interface Tracker {
  rows: number;
  from: number | null;
  to: number | null;
}

export function count(track: Tracker, time: number): void {
  track.rows++;
  if (track.from === null || time < track.from) track.from = time;
  if (track.to === null || time > track.to) track.to = time;
}

/** Most of a file's own text quoted back in a reason (a binary "line" can be megabytes). */
const REASON_MAX = 300;

/** A reason fit for one terminal line: control characters as `?`, long text cut short. */
function printable(reason: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = reason.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '?');
  return clean.length > REASON_MAX ? `${clean.slice(0, REASON_MAX)}... (${clean.length} characters)` : clean;
}

/** A line's text; NUL or bytes that are not UTF-8 (decoded as U+FFFD): a binary, compressed or UTF-16 file. */
export function lineText(block: Buffer, start: number, end: number): string {
  const raw = block.toString('utf8', start, end);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000\ufffd]/.test(raw)) throw new RowError('not CSV text (binary data, or not UTF-8)');
  return raw;
}

/** A line of spaces, tabs or other Unicode white space only. One starting with a visible ASCII character is not blank; others are decoded to tell. */
function isBlank(block: Buffer, start: number, end: number): boolean {
  const first = block[start];
  return !(first > 32 && first < 127) && block.toString('utf8', start, end).trim() === '';
}

/**
 * Read `file`: its first line that is not blank must be `header`; every later line that is
 * not blank is handed to `data` (its bytes in the block). After each block, yields what `take`
 * returns, unless null. Throws AppError(INVALID_IMPORT) naming the file and line of the first
 * problem, also when the file has no header or no data row.
 */
export async function* dataLines<T>(
  file: string,
  header: readonly string[],
  track: Tracker,
  data: (block: Buffer, start: number, end: number) => void,
  take: () => T | null,
): AsyncGenerator<T> {
  track.rows = 0;
  track.from = null;
  track.to = null;
  let lineNo = 0;
  let sawHeader = false;
  for await (const block of lineBlocks(file)) {
    try {
      eachLine(block, (start, end) => {
        lineNo++;
        if (start === end) return;
        if (isBlank(block, start, end)) return;
        if (sawHeader) return data(block, start, end);
        checkHeader(splitCsvLine(lineText(block, start, end)), header);
        sawHeader = true;
      });
    } catch (err) {
      if (err instanceof RowError) throw new AppError('INVALID_IMPORT', `${file}:${lineNo}: ${printable(err.message)}`);
      throw err;
    }
    const out = take();
    if (out !== null) yield out;
  }
  if (!sawHeader) throw new AppError('INVALID_IMPORT', `${file}:1: empty file (expected header "${header.join(',')}")`);
  if (track.rows === 0) throw new AppError('INVALID_IMPORT', `${file}:${lineNo}: no data rows after the header`);
}

/** Bytes read from the end of a file for its last line. */
const TAIL_BYTES = 64 * 1024;

/**
 * The file's last line that is not blank at its end, as bytes (a block and the line's bounds),
 * read from its last TAIL_BYTES only; null when the line is longer than that.
 */
export async function lastLine(file: string): Promise<{ block: Buffer; start: number; end: number } | null> {
  const fh = await open(file, 'r');
  let tail: Buffer;
  let size: number;
  try {
    size = (await fh.stat()).size;
    const len = Math.min(size, TAIL_BYTES);
    tail = Buffer.alloc(len);
    await fh.read(tail, 0, len, size - len);
  } finally {
    await fh.close();
  }
  let end = tail.length;
  while (end > 0 && (tail[end - 1] === LF || tail[end - 1] === CR || tail[end - 1] === 32 || tail[end - 1] === 9)) end--;
  let start = end;
  while (start > 0 && tail[start - 1] !== LF && tail[start - 1] !== CR) start--;
  return start === 0 && tail.length < size ? null : { block: tail, start, end };
}
