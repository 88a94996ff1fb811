/**
 * The candle reads render stored values in JS (`fixedPlaces`, `apiTimeOfEpoch`) instead of
 * asking PostgreSQL for `round(x, 6)::text` and `to_char`: checked here against PostgreSQL
 * itself, value by value, on both engines.
 */
import type { Services } from '../../src/composition';
import type { TextRow } from '../../src/db/database';
import { apiTimeOfEpoch, sqlEpochSeconds, sqlTime } from '../../src/db/sql';
import { fixedPlaces } from '../../src/domain/decimal';
import { databaseCases, useServices } from '../helpers/databases';

/** Deterministic numeric texts: signs, integer and fraction lengths, ties and nines. */
function decimals(n: number): string[] {
  const out = ['0', '-0.0000005', '0.0000005', '-0.0000004', '999999.9999995', '1.23456749', '1.2345675', '-7', '12345678901234567890.123456789'];
  let seed = 5;
  const next = () => (seed = (seed * 48271) % 2147483647);
  for (let i = 0; i < n; i++) {
    const int = String(next() % 10 ** (next() % 9));
    const places = next() % 11;
    let frac = '';
    for (let k = 0; k < places; k++) frac += String(next() % 3 === 0 ? 9 : next() % 10);
    if (next() % 5 === 0 && places > 6) frac = frac.slice(0, 6) + '5' + frac.slice(7);
    out.push(`${next() % 4 === 0 ? '-' : ''}${int}${places ? '.' + frac : ''}`);
  }
  return out;
}

describe.each(databaseCases())('rendering in JS on $name', (kase) => {
  const services = useServices(kase);
  const db = () => (services() as Services).store.db;

  it('when a stored NUMERIC has any number of places, then fixedPlaces prints what round(x, 6)::text and round(x, 8)::text print', async () => {
    const values = decimals(3_000);
    const rows = await db().query<TextRow>(
      `SELECT v::numeric::text, round(v::numeric, 6)::text, round(v::numeric, 8)::text FROM unnest($1::text[]) AS t(v)`,
      [values],
      { textRows: true },
    );
    expect(rows).toHaveLength(values.length);
    for (const [stored, six, eight] of rows) {
      expect(fixedPlaces(stored!, 6)).toBe(six);
      expect(fixedPlaces(stored!, 8)).toBe(eight);
    }
  });

  it("when a timestamptz is read as date_part('epoch'), then apiTimeOfEpoch prints what to_char prints, whatever the session's TimeZone", async () => {
    const times: string[] = [];
    for (let ms = Date.UTC(2019, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 7_777_777_777 / 97) times.push(new Date(Math.round(ms)).toISOString());
    times.push('1970-01-01T00:00:00Z', '2024-02-29T23:59:59.999Z', '2024-03-01T00:00:00Z', '2001-09-09T01:46:40.5Z');
    for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
      const rows = await db().transaction(async (tx) => {
        await tx.exec(`SET LOCAL TimeZone = '${zone}'`);
        return tx.query<TextRow>(`SELECT ${sqlEpochSeconds('t')}, ${sqlTime('t')} FROM unnest($1::timestamptz[]) AS x(t)`, [times], { textRows: true });
      });
      expect(rows).toHaveLength(times.length);
      for (const [epoch, text] of rows) expect(apiTimeOfEpoch(epoch!)).toBe(text);
    }
  });
});
