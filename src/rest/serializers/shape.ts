/**
 * The REST shape of a domain object, declared once as a table: each REST property, the domain
 * field it comes from, and its schema. From the table come the object a route sends, the JSON
 * text of a data row (hand-built: the 10,000-row path), the CSV columns and cells, and the
 * response schema in the OpenAPI document.
 */
import { z } from 'zod';
import { joinedBytes } from '../../encoding/json-rows';

export interface ShapeField<T> {
  /** The domain field this property shows (snake_case REST name -> camelCase domain name). */
  from: keyof T & string;
  schema: z.ZodType;
  /** Turn the domain value into the REST value (a nested shape's render, say). */
  as?: (value: never) => unknown;
}

export type ShapeFields<T> = Record<string, ShapeField<T>>;

export interface RestShape<T> {
  readonly schema: z.ZodObject;
  /** REST property names, in order (also the CSV header of a data row). */
  readonly names: readonly string[];
  render(value: T): Record<string, unknown>;
  /** `{"name":"value",...}` for a row whose values are API strings or null; undefined values are left out. */
  json(value: T): string;
  /** The rows' `json`, comma-separated, as UTF-8 bytes. */
  jsonRows(values: readonly T[]): Uint8Array;
  csvCells(value: T): Array<string | null | undefined>;
}

const accepts = (schema: z.ZodType, v: unknown) => schema.safeParse(v).success;

/**
 * The JSON writer of a row whose fields are all present, compiled from the table into one
 * string expression: as fast as a hand-written template, where a loop over the fields pays per
 * field and row. Names come from the shape's own table, never from input.
 */
function compiledJson<T>(entries: Array<[string, ShapeField<T>]>): (value: T) => string {
  const parts = entries.map(([name, f], i) => {
    if (!/^[A-Za-z_][\w]*$/.test(f.from) || !/^[\w-]+$/.test(name)) throw new Error(`shape field ${name} <- ${f.from}: not a plain name`);
    const key = `${i === 0 ? '{' : ','}"${name}":`;
    return accepts(f.schema, null) ? `${key}\${r.${f.from} === null ? 'null' : '"' + r.${f.from} + '"'}` : `${key}"\${r.${f.from}}"`;
  });
  // One template literal, as a hand-written writer would be (V8 builds it in one go).
  return new Function('r', `return \`${parts.join('')}}\`;`) as (value: T) => string;
}

/** The JSON writer of a row that may lack some fields (they are left out). */
function loopJson<T>(entries: Array<[string, ShapeField<T>]>): (value: T) => string {
  const froms = entries.map(([, f]) => f.from);
  const keyJson = entries.map(([n]) => `"${n}":`);
  return (value) => {
    let out = '{';
    for (let i = 0; i < froms.length; i++) {
      const v = value[froms[i]] as string | null | undefined;
      if (v === undefined) continue;
      out += `${out.length > 1 ? ',' : ''}${keyJson[i]}${v === null ? 'null' : `"${v}"`}`;
    }
    return out + '}';
  };
}

export function restShape<T>(fields: ShapeFields<T>): RestShape<T> {
  const entries = Object.entries(fields);
  const froms = entries.map(([, f]) => f.from);
  const optional = entries.some(([, f]) => accepts(f.schema, undefined));
  // Every value is a string PostgreSQL rendered from a fixed alphabet (digits, sign, point,
  // timestamp punctuation) or null: no escaping, no JSON.stringify walk per value.
  const json = optional ? loopJson(entries) : compiledJson(entries);
  return {
    schema: z.object(Object.fromEntries(entries.map(([n, f]) => [n, f.schema]))),
    names: entries.map(([n]) => n),
    render(value) {
      const out: Record<string, unknown> = {};
      for (const [n, f] of entries) {
        const v = value[f.from];
        out[n] = f.as ? f.as(v as never) : v;
      }
      return out;
    },
    json,
    jsonRows: (values) => joinedBytes(values.map(json)),
    csvCells(value) {
      return froms.map((f) => value[f] as string | null | undefined);
    },
  };
}

export const timestamp = z.string().meta({ description: 'ISO 8601, UTC (+00:00).', examples: ['2024-01-01T00:00:00+00:00'] });

const DECIMAL_EXAMPLE = '64250.500000';

/** A decimal string; `example` shows the places. */
export const decimal = (description: string, example = DECIMAL_EXAMPLE) => z.string().meta({ description, examples: [example] });

/** A decimal string or null; `description` says when it is null. */
export const nullableDecimal = (description: string, example = DECIMAL_EXAMPLE) => z.string().nullable().meta({ description, examples: [example] });

export const nextStart = z
  .string()
  .nullable()
  .meta({ description: 'Start of the next page (pass it as start), or null when this page reaches end.' });

/** A page: the read's own fields, then count, next_start and the rows. */
export const pageSchema = (fields: Record<string, z.ZodType>, row: z.ZodType) =>
  z.object({ ...fields, count: z.number().int(), next_start: nextStart, data: z.array(row) });

/** `{...head, "data":[rows]}` where the rows are already JSON text. */
export function pageJson(head: Record<string, unknown>, rows: readonly string[]): string {
  return `${dataOpening(head)}${rows.join(',')}]}`;
}

const DATA_CLOSING = Buffer.from(']}');

/** `pageJson` of rows already JSON bytes: one copy of them, and no string of the page. */
export function pageJsonBytes(head: Record<string, unknown>, rows: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(dataOpening(head)), rows, DATA_CLOSING]);
}

/** `{...head, "data":[` */
function dataOpening(head: Record<string, unknown>): string {
  const h = JSON.stringify(head);
  return `${h.slice(0, -1)}${h.length > 2 ? ',' : ''}"data":[`;
}
