/**
 * ContextRecorder without a socket or a database: updates folded into the minutes of a clock
 * the test sets, the minutes that ended written together at the minute's end (every series' in
 * one write), nothing for a silent minute, and a failed write kept and sent with the next one.
 */
import type { DerivativesInput, PerpContext } from '../../src/domain/derivatives';
import { createLogger } from '../../src/logger';
import { ContextRecorder } from '../../src/services/ingest/context-recorder';
import type { IngestTarget } from '../../src/services/ingest/series-filler';
import type { VenueAdapter } from '../../src/venues/venue';
import { manualClock } from '../helpers/server';

const M = Date.UTC(2024, 4, 1, 12, 0);
const ctx = (oi: string): PerpContext => ({ openInterest: oi, markPrice: '100', oraclePrice: '100', midPrice: null, fundingRate: '0.00001', premium: null });
const adapter = { id: 'hyperliquid' } as VenueAdapter;
const target = (id: number, instrument: string) => ({ exchange: 'perp', symbol: `${instrument}-USDT`, instrument, adapter, series: { id, symbol: `${instrument}-USDT` } }) as IngestTarget;

describe('ContextRecorder', () => {
  const clock = manualClock(M + 1_000);
  const writes: Array<Array<{ id: number; times: number[]; oi: Array<string | null> }>> = [];
  let failNext = false;
  const writer = {
    async derivatives(batch: ReadonlyArray<{ series: { id: number }; rows: readonly DerivativesInput[] }>) {
      if (failNext) {
        failNext = false;
        throw new Error('database unavailable');
      }
      writes.push(batch.map((b) => ({ id: b.series.id, times: b.rows.map((r) => r.time - M), oi: b.rows.map((r) => r.openInterest) })));
    },
  };
  const rec = new ContextRecorder([target(1, 'BTC'), target(2, 'ETH')], writer, clock.now, createLogger('silent'));
  const at = async (ms: number, fn: () => void) => {
    clock.set(M + ms);
    fn();
    await rec.idle();
  };

  it('when two series end a minute, then both are one write at its end; a minute with no update writes nothing', async () => {
    await at(1_000, () => rec.update(adapter, { instrument: 'BTC', context: ctx('10') }));
    await at(30_000, () => rec.update(adapter, { instrument: 'ETH', context: ctx('20') }));
    await at(59_999, () => rec.flush());
    expect(writes).toEqual([]);
    await at(60_001, () => rec.flush());
    expect(writes).toEqual([[{ id: 1, times: [0], oi: ['10'] }, { id: 2, times: [0], oi: ['20'] }]]);
    await at(120_001, () => rec.flush());
    expect(writes).toHaveLength(1);
  });

  it("when a write fails, then its minutes are kept and sent with the next minute's", async () => {
    writes.length = 0;
    await at(121_000, () => rec.update(adapter, { instrument: 'BTC', context: ctx('11') }));
    failNext = true;
    await at(180_001, () => rec.flush());
    expect(writes).toEqual([]);
    await at(181_000, () => rec.update(adapter, { instrument: 'BTC', context: ctx('12') }));
    await at(240_001, () => rec.flush());
    expect(writes).toEqual([[{ id: 1, times: [120_000, 180_000], oi: ['11', '12'] }]]);
  });

  it('when an update is for an instrument not followed, then it is ignored', async () => {
    writes.length = 0;
    await at(241_000, () => rec.update(adapter, { instrument: 'SOL', context: ctx('1') }));
    await at(300_001, () => rec.flush());
    expect(writes).toEqual([]);
  });
});
