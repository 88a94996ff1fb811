/**
 * Hand-built JSON for the 10,000-row responses. Every value in a data row is already a
 * string PostgreSQL rendered from a fixed alphabet (digits, sign, point, timestamp
 * punctuation) or null, so rows are concatenated without JSON.stringify's per-value walk.
 * Envelope fields go through JSON.stringify as usual.
 */

const quote = (v: string | null | undefined): string => (v === null || v === undefined ? 'null' : `"${v}"`);

/** `{"k1":"v1",...}` for a row whose keys are `keys` (skipped when the value is undefined). */
export function rowJson(row: Record<string, string | null | undefined>, keys: readonly string[]): string {
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = row[k];
    if (v === undefined) continue;
    out += `${first ? '' : ','}"${k}":${quote(v)}`;
    first = false;
  }
  return out + '}';
}

/** A candle row, keys in the API's order. */
export function candleJson(r: { time: string; open: string; high: string; low: string; close: string; volume: string }): string {
  return `{"time":"${r.time}","open":"${r.open}","high":"${r.high}","low":"${r.low}","close":"${r.close}","volume":"${r.volume}"}`;
}

/** An object whose `data` array is already rendered: `{...head, "data":[rows]}`. */
export function pageJson(head: Record<string, unknown>, rows: string[]): string {
  const h = JSON.stringify(head);
  return `${h.slice(0, -1)}${h.length > 2 ? ',' : ''}"data":[${rows.join(',')}]}`;
}
