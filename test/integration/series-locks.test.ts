/**
 * Live writes of one symbol's exchanges run side by side (each holds its series' lock and the
 * symbol's lock shared), while a holder of the whole symbol's lock (an import, a write that ends
 * an hour) waits for them and they wait for it, on PostgreSQL.
 */
import { openServices, type Services } from '../../src/composition';
import { testConfig } from '../helpers/config';
import { describeWith } from '../helpers/requirements';
import { freshPostgres, type FreshDatabase } from '../helpers/databases';
import { pause } from '../helpers/wait';

describeWith('DATABASE_URL', 'series and symbol locks on PostgreSQL', (url) => {
  let db: FreshDatabase;
  let s: Services;
  beforeAll(async () => {
    db = await freshPostgres(url);
    s = await openServices(testConfig({ DATABASE_URL: db.url }));
  });
  afterAll(async () => {
    await s?.close();
    await db?.drop();
  });

  /** Runs `fn` holding its locks until `release` resolves; resolves `held` once they are taken. */
  const holding = (take: (fn: () => Promise<void>) => Promise<void>) => {
    let release!: () => void;
    let held!: () => void;
    const taken = new Promise<void>((r) => (held = r));
    const done = take(async () => {
      held();
      await new Promise<void>((r) => (release = r));
    });
    return { taken, done, release: () => release() };
  };

  it('when one series of a symbol is being written, then another series of it writes at once and the symbol lock waits for both', async () => {
    const perp = await s.store.series.ensure({ exchange: 'perp', symbol: 'BTC-USDT' });
    const spot = await s.store.series.ensure({ exchange: 'spot', symbol: 'BTC-USDT' });
    const order: string[] = [];
    const first = holding((fn) => s.store.seriesTransaction('BTC-USDT', perp, fn));
    await first.taken;
    // Another series of the symbol: not blocked.
    await s.store.seriesTransaction('BTC-USDT', spot, async () => void order.push('spot series'));
    // The whole symbol: blocked until the series write ends.
    const whole = s.store.symbolTransaction('BTC-USDT', async () => void order.push('symbol'));
    await pause(300);
    order.push('perp series ends');
    first.release();
    await Promise.all([first.done, whole]);
    expect(order).toEqual(['spot series', 'perp series ends', 'symbol']);

    // And a series write waits while the whole symbol is held.
    const symbolHeld = holding((fn) => s.store.symbolTransaction('BTC-USDT', fn));
    await symbolHeld.taken;
    const series = s.store.seriesTransaction('BTC-USDT', spot, async () => void order.push('spot after symbol'));
    await pause(300);
    order.push('symbol ends');
    symbolHeld.release();
    await Promise.all([symbolHeld.done, series]);
    expect(order.slice(-2)).toEqual(['symbol ends', 'spot after symbol']);
  });
});
