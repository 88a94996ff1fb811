/**
 * The input of a large bulkUpsert as pieces of whole lines or rows, each with the table it is
 * copied into (the timeframe's table, or its leaves), read ahead of the server.
 */
import { rowEnd, rowTime } from '../encoding/binary-rows';
import type { BulkUpsertSpec } from './bulk-upsert';

/** A piece of the input: CSV text of whole lines, or whole binary rows (BinaryRows). */
export type Chunk = string | Buffer;

/** Whole lines or rows, and the table they are copied into. */
export interface Piece {
  table: string;
  text: Chunk;
}

/** The chunks already read (`head`), then the rest of `source`, all into `table`; `source` is closed with it. */
export async function* whole(table: string, source: AsyncIterator<Chunk>, head: Chunk[]): AsyncGenerator<Piece> {
  try {
    for (const text of head) yield { table, text };
    for (let next = await source.next(); !next.done; next = await source.next()) yield { table, text: next.value };
  } finally {
    await source.return?.();
  }
}

/**
 * The same, each chunk cut where its rows change leaf (`spec.leafOf`). Rows come in time
 * order, so a chunk whose first and last rows share a leaf is all of it (one that is not is
 * refused by the leaf's partition constraint, and bulkUpsert goes through `spec.table`).
 */
export async function* byLeaf(spec: BulkUpsertSpec, source: AsyncIterator<Chunk>, head: Chunk[]): AsyncGenerator<Piece> {
  const field = spec.columns.indexOf('time');
  const rows = spec.types ? binaryRows(field) : csvLines(field);
  const leafAt = (chunk: Chunk, start: number) => {
    const ms = rows.time(chunk, start);
    return Number.isNaN(ms) ? spec.table : spec.leafOf!(ms);
  };
  for await (const { text } of whole(spec.table, source, head)) {
    const starts = rows.starts(text);
    if (starts.length === 0) continue;
    const last = starts[starts.length - 1];
    let k = 0;
    while (k < starts.length) {
      const start = starts[k];
      const table = leafAt(text, start);
      if (leafAt(text, last) === table) {
        yield { table, text: start === 0 ? text : part(text, start, text.length) };
        break;
      }
      do k++;
      while (k < starts.length && leafAt(text, starts[k]) === table);
      yield { table, text: part(text, start, k < starts.length ? starts[k] : text.length) };
    }
  }
}

/** Bytes or characters [start, end) of a chunk (a Buffer's as a view). */
function part(chunk: Chunk, start: number, end: number): Chunk {
  return typeof chunk === 'string' ? chunk.slice(start, end) : chunk.subarray(start, end);
}

/** How byLeaf reads a chunk: where its rows start, and a row's time (Unix ms; NaN: unreadable). */
interface RowReader {
  starts(chunk: Chunk): number[];
  time(chunk: Chunk, start: number): number;
}

function binaryRows(field: number): RowReader {
  return {
    starts(chunk) {
      const buf = chunk as Buffer;
      const out: number[] = [];
      for (let at = 0; at < buf.length; at = rowEnd(buf, at)) out.push(at);
      return out;
    },
    time: (chunk, start) => rowTime(chunk as Buffer, start, field),
  };
}

/** CSV lines whose time is written `YYYY-MM-DDT…Z` (as AsciiText writes it; UTC): the start of its month, which is all a leaf needs. */
function csvLines(field: number): RowReader {
  return {
    starts(chunk) {
      const text = chunk as string;
      const out: number[] = [];
      for (let at = 0; at < text.length; at = text.indexOf('\n', at) + 1 || text.length) out.push(at);
      return out;
    },
    time(chunk, start) {
      const text = chunk as string;
      let i = start;
      for (let k = 0; k < field; k++) i = text.indexOf(',', i) + 1;
      let end = text.indexOf(',', i);
      const eol = text.indexOf('\n', i);
      if (end < 0 || (eol >= 0 && eol < end)) end = eol;
      const t = text.slice(i, end);
      if (t.length < 20 || t.charCodeAt(4) !== 45 || t.charCodeAt(7) !== 45 || t.charCodeAt(t.length - 1) !== 90) return NaN;
      return Date.UTC(Number(t.slice(0, 4)), Number(t.slice(5, 7)) - 1, 1);
    },
  };
}

export interface ReadAhead {
  /** Whether the input has ended (waits for the next piece or the end). */
  done(): Promise<boolean>;
  /** The table of the next piece (after `done()` said there is one). */
  table(): string;
  /** The text of the next pieces of that table, up to about `chars` (at least one piece). */
  part(chars: number): AsyncGenerator<Chunk>;
  /** Stop reading; the source is closed (its file, its generator). */
  close(): Promise<void>;
}

/**
 * Pull `source` ahead of its consumer, up to `maxChars` of text (0: one piece at a time, as
 * the consumer asks). A failure of the source reaches the consumer at its next read.
 */
export function readAhead(source: AsyncGenerator<Piece>, maxChars: number): ReadAhead {
  const queue: Piece[] = [];
  let queued = 0;
  let ended = false;
  let failed = false;
  let failure: unknown;
  let stopping = false;
  let wakeConsumer: (() => void) | null = null;
  let wakeProducer: (() => void) | null = null;
  const wake = () => {
    wakeConsumer?.();
    wakeConsumer = null;
  };
  const producer = (async () => {
    try {
      while (!stopping) {
        if (queue.length > 0 && queued >= maxChars) {
          await new Promise<void>((r) => (wakeProducer = r));
          continue;
        }
        const next = await source.next();
        if (next.done) break;
        queue.push(next.value);
        queued += next.value.text.length;
        wake();
      }
    } catch (err) {
      failed = true;
      failure = err;
    } finally {
      ended = true;
      wake();
    }
  })();
  async function ready(): Promise<void> {
    while (queue.length === 0 && !ended) await new Promise<void>((r) => (wakeConsumer = r));
    if (failed) throw failure;
  }
  function shift(): Chunk {
    const { text } = queue.shift()!;
    queued -= text.length;
    wakeProducer?.();
    wakeProducer = null;
    return text;
  }
  return {
    async done() {
      await ready();
      return queue.length === 0;
    },
    table: () => queue[0].table,
    async *part(chars) {
      const table = queue[0].table;
      let sent = 0;
      while (sent < chars) {
        await ready();
        if (queue.length === 0 || queue[0].table !== table) return;
        const chunk = shift();
        sent += chunk.length;
        yield chunk;
      }
    },
    async close() {
      stopping = true;
      wakeProducer?.();
      await producer;
      await source.return(undefined);
    },
  };
}
