/**
 * The venue simulator's perpetual context and funding shapes (tools/venue-sim): metaAndAssetCtxs
 * and activeAssetCtx in the documented shapes, pushes at their slots carrying the context of
 * their slot's time, a silent context feed while candles go on, and settlements set late,
 * missing or twice in an hour as Hyperliquid's recorded history has them.
 */
import WebSocket from 'ws';
import { VenueSimulator } from '../../tools/venue-sim';
import { pollUntil } from '../helpers/wait';
import metaAndAssetCtxsDoc from '../fixtures/venues/hyperliquid-meta-and-asset-ctxs.json';
import activeAssetCtx from '../fixtures/venues/hyperliquid-ws-active-asset-ctx.json';
import fundingRecorded from '../fixtures/venues/hyperliquid-funding-recorded.json';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const HOUR = 3_600_000;
const [docMeta, docContexts] = metaAndAssetCtxsDoc.payload as [Json, Json[]];
const decimal = /^-?\d+\.\d+$/;

let sim: VenueSimulator;
afterEach(async () => {
  await sim?.close();
});

const info = async (body: unknown): Promise<Json> =>
  (await fetch(`${sim.env.HYPERLIQUID_API_URL}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

/** A socket subscribed to BTC's candles and context, keeping each message with when it came. */
async function follow(): Promise<{ ws: WebSocket; messages: Array<{ at: number; m: Json }> }> {
  const ws = new WebSocket(sim.env.HYPERLIQUID_WS_URL);
  const messages: Array<{ at: number; m: Json }> = [];
  ws.on('message', (m) => messages.push({ at: Date.now(), m: JSON.parse(String(m)) }));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'candle', coin: 'BTC', interval: '1m' } }));
  ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'activeAssetCtx', coin: 'BTC' } }));
  return { ws, messages };
}
const contexts = (messages: Array<{ at: number; m: Json }>) => messages.filter((x) => x.m.channel === 'activeAssetCtx');

describe('Hyperliquid context', () => {
  it('metaAndAssetCtxs answers [meta, contexts] in the documented shape, one context per served coin in universe order', async () => {
    sim = await VenueSimulator.start({ hyperliquid: ['BTC', 'ETH', 'SOL'] });
    const [meta, ctxs] = await info({ type: 'metaAndAssetCtxs' });
    expect(meta.universe.map((u: Json) => u.name)).toEqual(['BTC', 'ETH', 'SOL']);
    expect(Object.keys(meta.universe[0]).sort()).toEqual(Object.keys(docMeta.universe[0]).sort());
    expect(ctxs).toHaveLength(3);
    for (const c of ctxs) {
      expect(Object.keys(c).sort()).toEqual([...Object.keys(docContexts[0]), 'dayBaseVlm'].sort());
      for (const f of ['openInterest', 'markPx', 'oraclePx', 'midPx', 'funding', 'premium']) expect(c[f]).toMatch(decimal);
    }
    expect(Number(ctxs[0].markPx)).toBeGreaterThan(30_000);
    expect(sim.requests.at(-1)).toMatchObject({ kind: 'metaAndAssetCtxs', weight: 20 });
  });

  it("activeAssetCtx is acknowledged, pushed at once and then at each slot with that slot's context, in the documented message shape", async () => {
    sim = await VenueSimulator.start({ contextIntervalMs: 1_000 });
    const { ws, messages } = await follow();
    await pollUntil(async () => contexts(messages).length, (n) => n >= 4, { withinMs: 6_000 });
    ws.close();
    const got = contexts(messages);
    expect(messages.some((x) => x.m.channel === 'subscriptionResponse' && x.m.data.subscription.type === 'activeAssetCtx')).toBe(true);
    expect(Object.keys(got[0].m.data)).toEqual(Object.keys(activeAssetCtx.payload.data));
    expect(Object.keys(got[0].m.data.ctx).sort()).toEqual([...Object.keys(activeAssetCtx.payload.data.ctx), 'dayBaseVlm'].sort());
    // Each later push carries the context of its slot: half a second past a second, received shortly after it.
    for (const { at, m } of got.slice(1)) {
      const slot = Math.floor((at - 500) / 1_000) * 1_000 + 500;
      const candidates = [slot, slot - 1_000].map((t) => sim.context('BTC', t));
      expect(candidates).toContainEqual({
        openInterest: m.data.ctx.openInterest,
        markPx: m.data.ctx.markPx,
        oraclePx: m.data.ctx.oraclePx,
        midPx: m.data.ctx.midPx,
        funding: m.data.ctx.funding,
        premium: m.data.ctx.premium,
      });
    }
  });

  it('with setContextSilent, no context is pushed while the candles go on; off again, it resumes', async () => {
    sim = await VenueSimulator.start({ contextIntervalMs: 200, pushIntervalMs: 100 });
    sim.setContextSilent(true);
    const { ws, messages } = await follow();
    await pollUntil(async () => messages.filter((x) => x.m.channel === 'candle').length, (n) => n >= 5, { withinMs: 3_000 });
    expect(contexts(messages)).toEqual([]);
    sim.setContextSilent(false);
    await pollUntil(async () => contexts(messages).length, (n) => n >= 1, { withinMs: 3_000 });
    ws.close();
    expect(contexts(messages).length).toBeGreaterThanOrEqual(1);
  });
});

describe('Hyperliquid funding shapes', () => {
  it('settlements set late, long after the hour, twice or never come back as the recorded history has them', async () => {
    sim = await VenueSimulator.start();
    const recorded = fundingRecorded.payload.map((r) => r.time % HOUR);
    expect(recorded).toEqual(expect.arrayContaining([5457, 1433040]));
    const hour = Math.floor(Date.now() / HOUR) * HOUR - 10 * HOUR;
    sim.setFundingSettlements('BTC', hour, [hour + 5457]);
    sim.setFundingSettlements('BTC', hour + HOUR, [hour + HOUR + 1433040]);
    sim.setFundingSettlements('BTC', hour + 2 * HOUR, []);
    sim.setFundingSettlements('BTC', hour + 3 * HOUR, [hour + 3 * HOUR + 40, hour + 3 * HOUR + 2_500]);
    const rows: Json[] = await info({ type: 'fundingHistory', coin: 'BTC', startTime: hour - HOUR, endTime: hour + 4 * HOUR + 1_000 });
    expect(rows.map((r) => r.time - hour)).toEqual([rows[0].time - hour, 5457, HOUR + 1433040, 3 * HOUR + 40, 3 * HOUR + 2_500, 4 * HOUR + (rows[5].time % HOUR)]);
    expect(rows[3].fundingRate).not.toBe(rows[4].fundingRate);
    expect(sim.fundingRate('BTC', hour + 2 * HOUR)).toBeNull();
    expect(sim.fundingRate('BTC', hour)).toBe(rows[1].fundingRate);
  });
});
