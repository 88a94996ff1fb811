/**
 * JSON of page rows written as bytes into one buffer, for the REST bodies and the GraphQL pages
 * alike: the caller names the members (REST's snake_case, or a GraphQL selection's response
 * keys) and the layout says where each value sits and how it is served. No string is made per
 * row or value: on 10,000 rows the strings and their garbage cost more than the formatting.
 * Member names must be plain JSON names (REST's own, or GraphQL names, which need no escaping).
 */
import type { TextValue } from '../domain/candle-text';
import type { TextRow } from '../domain/market';
import { AsciiText, ByteBuilder } from './ascii-text';

/** One member of a row's JSON object: its name and the value it shows. */
export interface JsonMember {
  name: string;
  value: TextValue;
}

const TIME = 0;
const DECIMAL = 1;
const INTEGER = 2;
const KIND = { time: TIME, decimal: DECIMAL, integer: INTEGER } as const;

const NULL = Buffer.from('null', 'latin1');
const PLAIN_NAME = /^[A-Za-z_][\w-]*$/;

/** The members as flat arrays: the hot loops below read numbers, not objects. */
function compile(members: readonly JsonMember[], open: string, separator: string) {
  for (const m of members) if (!PLAIN_NAME.test(m.name)) throw new Error(`JSON member ${m.name}: not a plain name`);
  return {
    keys: members.map((m, i) => Buffer.from(`${i === 0 ? open : separator}"${m.name}":`, 'latin1')),
    at: Int32Array.from(members, (m) => m.value.at),
    kind: Int32Array.from(members, (m) => KIND[m.value.kind]),
    places: Int32Array.from(members, (m) => (m.value.kind === 'decimal' ? m.value.places : 0)),
  };
}

/** One served value, quoted, or null. */
function value(out: AsciiText, text: string | null | undefined, kind: number, places: number): void {
  if (text === null || text === undefined) return out.copy(NULL, 0, 4);
  out.byte(34); // "
  if (kind === DECIMAL) out.decimal(text, 0, text.length, places);
  else if (kind === TIME) out.epochTime(text);
  else out.ascii(text);
  out.byte(34);
}

/** The first `count` rows as JSON objects of `members`, comma-separated (no brackets). */
export function textRowsJson(rows: readonly TextRow[], count: number, members: readonly JsonMember[]): Buffer {
  const c = compile(members, '{', ',');
  const n = c.keys.length;
  const out = new AsciiText(count * (24 + n * 24) + 64);
  for (let i = 0; i < count; i++) {
    const r = rows[i];
    if (i > 0) out.byte(44); // ,
    for (let k = 0; k < n; k++) {
      const key = c.keys[k];
      out.copy(key, 0, key.length);
      value(out, r[c.at[k]], c.kind[k], c.places[k]);
    }
    out.byte(125); // }
  }
  return out.view();
}

/** The first `count` rows as one JSON object of columns: `{"name":[values of every row],...}`. */
export function textColumnsJson(rows: readonly TextRow[], count: number, members: readonly JsonMember[]): Buffer {
  const c = compile(members, '{', ',');
  const out = new AsciiText(count * members.length * 16 + 64);
  for (let k = 0; k < c.keys.length; k++) {
    out.copy(c.keys[k], 0, c.keys[k].length);
    out.byte(91); // [
    for (let i = 0; i < count; i++) {
      if (i > 0) out.byte(44);
      value(out, rows[i][c.at[k]], c.kind[k], c.places[k]);
    }
    out.byte(93); // ]
  }
  out.byte(125);
  return out.view();
}

/**
 * Texts that are JSON already (rows a serializer rendered), comma-separated, as UTF-8 bytes in
 * one buffer: no joined string of the page to collect and encode again.
 */
export function joinedBytes(texts: readonly string[]): Buffer {
  const out = new ByteBuilder(texts.length * 400 + 16);
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    out.room(text.length * 3 + 1);
    if (i > 0) out.bytes[out.length++] = 44; // ,
    out.length += out.bytes.write(text, out.length, 'utf8');
  }
  return out.view();
}
