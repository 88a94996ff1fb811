/**
 * Closing the services waits for the market events under way: writers start a publication
 * without waiting for it (the write has committed; publishing must not slow it), so a process
 * that ends right after its last write (`mds sync`, a server shutting down) must still put that
 * write's events on the bus, not fail them on a closed pool.
 */
import { Writable } from 'node:stream';
import { openServices } from '../../src/composition';
import { oneBatch } from '../../src/db/bulk-upsert';
import { createLogger } from '../../src/logger';
import type { MarketEvent } from '../../src/services/events/market-events';
import { testConfig } from '../helpers/config';
import { databaseCases } from '../helpers/databases';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

describe.each(databaseCases())('closing the services on $name', (kase) => {
  afterAll(() => kase.cleanup());

  it('when a write is followed at once by close, then its candle event is published and nothing is logged as lost', async () => {
    const lines: string[] = [];
    const logger = createLogger('warn', new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    const db = await kase.create();
    const s = await openServices(testConfig(db ? { DATABASE_URL: db.url } : {}), { logger, ...(db ? {} : { dataDir: 'memory' }) });
    const heard: MarketEvent[] = [];
    s.events.bus.listen((e) => heard.push(e));
    const rows = Array.from({ length: 3 }, (_, i) => ({ time: T0 + i * MINUTE, open: '1.5', high: '2.5', low: '0.5', close: '2', volume: '10' }));
    const id = await s.store.transaction(async (tx) => {
      const seriesId = await tx.series.ensure({ exchange: 'spot', symbol: 'BTC-USDT' });
      await tx.candles.upsert(seriesId, '1m', oneBatch(rows));
      return seriesId;
    });
    // As the writers call it: not awaited.
    void s.events.publisher.candlesStored(id, '1m', T0, T0 + 2 * MINUTE);
    await s.close();
    await db?.drop();
    expect(lines.join('')).toBe('');
    const candles = heard.find((e) => e.type === 'candle' && e.timeframe === '1m');
    expect(candles).toMatchObject({ exchange: 'spot', symbol: 'BTC-USDT' });
    expect(candles?.type === 'candle' ? candles.candles.map((c) => c.close) : null).toEqual(['2.000000', '2.000000', '2.000000']);
  });
});
