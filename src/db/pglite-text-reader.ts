/**
 * `textRows` reads on PGlite over its wire protocol: PGlite's own query() parses every
 * protocol message of a result into objects (one allocation per value), which costs several
 * times what executing the statement does; here the result bytes are read straight into each
 * row's texts. Statements asked to `prepare` are parsed once per instance under a name, like
 * the prepared statements of a PostgreSQL connection.
 */
import { protocol, type PGlite } from '@electric-sql/pglite';
import type { TextRow } from './database';

const { serialize } = protocol;
const ERROR = 0x45; // 'E'
const DATA_ROW = 0x44; // 'D'
const PARAMETER_DESCRIPTION = 0x74; // 't'

interface Statement {
  name: string;
  paramTypes: number[];
}

/** The fields of an ErrorResponse, as PGlite reports them (code, detail, …), in a DatabaseError. */
function errorOf(buf: Buffer, at: number, end: number, text: string): Error {
  const fields: Record<string, string> = {};
  let p = at;
  while (p < end && buf[p] !== 0) {
    const key = String.fromCharCode(buf[p]);
    const stop = buf.indexOf(0, p + 1);
    fields[key] = buf.toString('utf8', p + 1, stop);
    p = stop + 1;
  }
  const err = new protocol.messages.DatabaseError(fields.M ?? 'database error', end - at, 'error');
  Object.assign(err, {
    severity: fields.S,
    code: fields.C,
    detail: fields.D,
    hint: fields.H,
    position: fields.P,
    where: fields.W,
    schema: fields.s,
    table: fields.t,
    column: fields.c,
    constraint: fields.n,
    query: text,
  });
  return err;
}

/** The rows of a result, or the statement's parameter types when it was described; throws its error. */
function readResult(bytes: Buffer, text: string): { rows: TextRow[]; paramTypes: number[] | null } {
  const rows: TextRow[] = [];
  let paramTypes: number[] | null = null;
  let error: Error | null = null;
  for (let i = 0; i < bytes.length; ) {
    const type = bytes[i];
    const end = i + 1 + bytes.readUInt32BE(i + 1);
    let p = i + 5;
    if (type === DATA_ROW) {
      const n = bytes.readUInt16BE(p);
      p += 2;
      const row: TextRow = new Array(n);
      for (let f = 0; f < n; f++) {
        const len = bytes.readInt32BE(p);
        p += 4;
        if (len < 0) row[f] = null;
        else {
          row[f] = bytes.toString('utf8', p, p + len);
          p += len;
        }
      }
      rows.push(row);
    } else if (type === PARAMETER_DESCRIPTION) {
      const n = bytes.readUInt16BE(p);
      paramTypes = [];
      for (let k = 0; k < n; k++) paramTypes.push(bytes.readUInt32BE(p + 2 + 4 * k));
    } else if (type === ERROR && !error) {
      error = errorOf(bytes, p, end, text);
    }
    i = end;
  }
  if (error) throw error;
  return { rows, paramTypes };
}

/** The reads of one PGlite instance; `inTransaction` sessions already hold its transaction mutex. */
export class PgliteTextReader {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: PGlite) {}

  async query(text: string, params: readonly unknown[], prepare: boolean, inTransaction: boolean): Promise<TextRow[]> {
    await this.db._checkReady();
    const run = () => this.db._runExclusiveQuery(() => this.run(text, params, prepare));
    return inTransaction ? run() : this.db._runExclusiveTransaction(run);
  }

  private async run(text: string, params: readonly unknown[], prepare: boolean): Promise<TextRow[]> {
    let statement = prepare ? this.statements.get(text) : undefined;
    if (!statement) {
      // Parsed (under a name when prepared) and described once: the parameter types say how
      // each value is written, as PGlite's own query() does.
      const name = prepare ? `mds_${this.statements.size + 1}` : '';
      const { paramTypes } = readResult(await this.exchange([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]), text);
      statement = { name, paramTypes: paramTypes ?? [] };
      if (prepare) this.statements.set(text, statement);
    }
    const { paramTypes } = statement;
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      const write = this.db.serializers[paramTypes[i]];
      return write ? write(v) : String(v);
    });
    const bind = serialize.bind({ statement: statement.name, values });
    return readResult(await this.exchange([bind, serialize.execute({}), serialize.sync()]), text).rows;
  }

  /** Send the messages; the result's bytes are copied out of PGlite's memory as they are written. */
  private async exchange(messages: Uint8Array[]): Promise<Buffer> {
    const chunks: Buffer[] = [];
    await this.db.execProtocolRawStream(Buffer.concat(messages), { syncToFs: false, onRawData: (b) => chunks.push(Buffer.from(b)) });
    return Buffer.concat(chunks);
  }
}
