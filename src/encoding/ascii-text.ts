/**
 * ASCII text built as bytes in one buffer (JSON rows, encoding/json-rows.ts): numbers, times
 * and codes are ASCII, so no string is made per value or per row (on 10,000 rows the strings
 * and their garbage collection cost more than the formatting itself; bench/README.md).
 */
import { fixedPlaces } from '../domain/decimal';

/** Bytes written into one buffer that grows as needed (AsciiText, BinaryRows). */
export class ByteBuilder {
  bytes: Buffer;
  length = 0;

  constructor(capacity: number) {
    this.bytes = Buffer.allocUnsafe(capacity);
  }

  /** Make room for `n` more bytes (the buffer grows; what it holds is kept). */
  room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  /** The bytes so far, as a view of the buffer: nothing may be written after. */
  view(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
}

export class AsciiText extends ByteBuilder {

  constructor(capacity = 1 << 20) {
    super(capacity);
  }

  /** An ASCII string (a code, a number's text). */
  ascii(s: string): void {
    this.room(s.length);
    this.length += this.bytes.write(s, this.length, 'latin1');
  }

  byte(c: number): void {
    this.room(1);
    this.bytes[this.length++] = c;
  }

  /** Bytes [start, end) of `src`. */
  copy(src: Uint8Array, start: number, end: number): void {
    this.room(end - start);
    const b = this.bytes;
    let at = this.length;
    for (let i = start; i < end; i++) b[at++] = src[i];
    this.length = at;
  }

  /**
   * `fixedPlaces(text.slice(from, to), places)` (a NUMERIC's text with exactly `places`
   * decimals): the common case, padding, written without making a string.
   */
  decimal(text: string, from: number, to: number, places: number): void {
    let dot = -1;
    for (let i = from; i < to; i++) {
      if (text.charCodeAt(i) === 46) {
        dot = i;
        break;
      }
    }
    const have = dot < 0 ? 0 : to - dot - 1;
    const last = text.charCodeAt(to - 1);
    if (have > places || !(last >= 48 && last <= 57)) return this.ascii(fixedPlaces(text.slice(from, to), places));
    this.room(to - from + places + 1);
    const b = this.bytes;
    let at = this.length;
    for (let i = from; i < to; i++) b[at++] = text.charCodeAt(i);
    if (dot < 0 && places > 0) b[at++] = 46; // .
    for (let i = have; i < places; i++) b[at++] = 48;
    this.length = at;
  }
}
