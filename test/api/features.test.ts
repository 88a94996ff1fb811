/**
 * Pre-computed features through REST and GraphQL over the fixtures: values equal to the
 * indicators computed directly over the full series, window independence, the funding
 * timeframe, error codes and tier rules.
 */
import { technicalFeatures } from '../../src/domain/technical-features';
import { formatFloat } from '../../src/domain/decimal';
import { FeaturesRepository } from '../../src/db/features.repository';
import { featureRowTemplate } from '../../src/rest/serializers/feature.serializer';
import { HOUR, HOURS, T0, iso, loadFixtures, perpClose, rateAt } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import type { Json } from '../helpers/json';

const NOW = T0 + 900 * HOUR + 30_000;
const ts = (ms: number) => iso(ms).slice(0, 19) + '+00:00';
const ALL = ['rsi_9', 'rsi_14', 'rsi_21', 'macd', 'macd_signal', 'macd_histogram', 'bb_upper', 'bb_middle', 'bb_lower', 'bb_width', 'bb_pct', 'atr_14', 'vwap_20', 'twap_20', 'price_vs_vwap_20'];

describe('features', () => {
  let srv: TestServer;
  let pro: string;
  let free: string;
  const get = (path: string, key = pro) => srv.getJson(path, key);

  beforeAll(async () => {
    srv = await startTestServer({ clock: () => NOW });
    await loadFixtures(srv.services, NOW);
    [pro, free] = await Promise.all([srv.key('pro'), srv.key('free')]);
  }, 120_000);
  afterAll(() => srv?.stop());

  it('when all 15 technical features are asked, then each equals the indicator over the full series', async () => {
    const r = await get(`/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=1h&features=${ALL.join(',')}&start=${iso(T0)}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1h', features: ALL, count: HOURS, next_start: null });
    const close = Array.from({ length: HOURS }, (_, h) => perpClose(h));
    const open = close.map((c, h) => (h === 0 ? c : close[h - 1]));
    const bars = {
      open,
      close,
      high: close.map((c, h) => Math.max(open[h], c) + 1),
      low: close.map((c, h) => Math.min(open[h], c) - 1),
      volume: close.map((_, h) => (h % 7) + 0.5),
    };
    const expected = technicalFeatures(bars);
    for (const h of [0, 8, 9, 14, 19, 33, 100, 799]) {
      const row = r.body.data[h];
      expect(row.time).toBe(ts(T0 + h * HOUR));
      for (const f of ALL) {
        const want = expected[f as keyof typeof expected][h];
        if (Number.isNaN(want)) expect(row[f]).toBeNull(); // no value: null in the response
        else expect(Math.abs(Number(row[f]) - want)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(want)));
      }
    }
    expect(r.body.data[8].rsi_9).toBeNull();
    expect(r.body.data[9].rsi_9).toMatch(/^\d+\.\d{6}$/);
    expect(Object.keys(r.body.data[0])).toEqual(['time', ...ALL]);
  });

  it('when rendered rows are read past a limit, then the next page starts at the extra row and pages join up', async () => {
    const repo = new FeaturesRepository(srv.services.store.db);
    const [{ id }] = await srv.services.store.db.query<{ id: number }>("SELECT id FROM series WHERE exchange = 'perp' AND symbol = 'BTC-USDT'");
    const template = featureRowTemplate({ names: ['rsi_14'] } as never);
    const a = await repo.renderedPage(id, '1h', ['rsi_14'], template, new Date(T0), new Date(T0 + 1000 * HOUR), 100, null);
    expect(a.page.count).toBe(100);
    expect(a.page.nextStart).toBe(ts(T0 + 100 * HOUR));
    const b = await repo.renderedPage(id, '1h', ['rsi_14'], template, new Date(Date.parse(a.page.nextStart!)), new Date(T0 + 1000 * HOUR), 1000, null);
    expect(b.page.count).toBe(HOURS - 100);
    expect(b.page.nextStart).toBeNull();
    const rest = await get(`/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=1h&features=rsi_14&start=${iso(T0)}`);
    expect([...a.page.data, ...b.page.data].map((r) => JSON.parse(r.text))).toEqual(rest.body.data);
  });

  it('when two different starts are asked, then the value at the same time is the same', async () => {
    const a = await get(`/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=1h&features=rsi_14,macd_signal,atr_14&start=${iso(T0)}&end=${iso(T0 + 500 * HOUR)}`);
    const b = await get(`/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=1h&features=rsi_14,macd_signal,atr_14&start=${iso(T0 + 450 * HOUR)}&end=${iso(T0 + 500 * HOUR)}`);
    expect(b.body.data).toEqual(a.body.data.slice(450));
  });

  it('when funding features are asked on timeframe funding, then they follow the funding rows', async () => {
    const r = await get(`/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=funding&features=funding_norm,funding_cumulative_24h,funding_cumulative_7d,premium_pct&start=${iso(T0 + 760 * HOUR)}&end=${iso(T0 + 761 * HOUR)}`);
    expect(r.body.count).toBe(2);
    const row = r.body.data[0];
    const sum = (n: number) => Array.from({ length: n }, (_, i) => rateAt(760 - i)).reduce((x, y) => x + y, 0);
    expect(Math.abs(Number(row.funding_cumulative_24h) - sum(24))).toBeLessThanOrEqual(1e-6);
    expect(Math.abs(Number(row.funding_cumulative_7d) - sum(168))).toBeLessThanOrEqual(1e-6);
    const premium = 0.05 / (perpClose(759) - 0.05);
    expect(Math.abs(Number(row.premium_pct) - premium * 100)).toBeLessThanOrEqual(1e-6);
    const funding = await get(`/v1/funding?symbol=BTC-USDT&exchange=perp&normalized=true&start=${iso(T0 + 760 * HOUR)}&end=${iso(T0 + 761 * HOUR)}`);
    expect(r.body.data.map((x: Json) => x.funding_norm)).toEqual(funding.body.data.map((x: Json) => x.rate_normalized));
    const early = await get(`/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=funding&features=funding_cumulative_24h&start=${iso(T0 + 22 * HOUR)}&end=${iso(T0 + 23 * HOUR)}`);
    expect(early.body.data.map((x: Json) => x.funding_cumulative_24h === null)).toEqual([true, false]);
  });

  it.each([
    ['no features', `features=&timeframe=1h`, 400, 'MISSING_FEATURES'],
    ['an unknown feature', `features=rsi_14,rsi_99&timeframe=1h`, 400, 'UNKNOWN_FEATURES'],
    ['a funding feature on 1h', `features=funding_norm&timeframe=1h`, 400, 'UNKNOWN_FEATURES'],
    ['a technical feature on funding', `features=rsi_14&timeframe=funding`, 400, 'UNKNOWN_FEATURES'],
    ['an unknown timeframe', `features=rsi_14&timeframe=2h`, 400, 'INVALID_TIMEFRAME'],
    ['start after end', `features=rsi_14&timeframe=1h&end=${T0 - 1}`, 400, 'INVALID_TIME_RANGE'],
  ])('when REST gets %s (%s), then %d %s', async (_w, q, status, code) => {
    const r = await get(`/v1/features?symbol=BTC-USDT&exchange=perp&start=${T0}&${q}`);
    expect(r.status).toBe(status);
    expect(r.body.error).toBe(code);
  });

  it('when a free key asks for 5m features, then 403; timeframe funding is exempt from granularity and window', async () => {
    expect((await get(`/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=5m&features=rsi_14&start=${T0}`, free)).status).toBe(403);
    const r = await get(`/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=funding&features=funding_norm&start=${T0 - 400 * 86_400_000}&end=${T0}`, free);
    expect(r.status).toBe(200);
  });

  it('when GraphQL asks the same question, then the same values', async () => {
    const rest = await get(`/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=1h&features=rsi_14,bb_pct&start=${iso(T0 + 10 * HOUR)}&end=${iso(T0 + 40 * HOUR)}`);
    const res = await srv.gql(
      `{ market(exchange: "perp", symbol: "BTC-USDT") { features(timeframe: "1h", names: ["rsi_14", "bb_pct"], start: "${iso(T0 + 10 * HOUR)}", end: "${iso(T0 + 40 * HOUR)}") { features count data { time values { name value } } } } }`,
      undefined,
      pro,
    );
    const g = ((await res.json()) as Json).data.market.features;
    expect(g.features).toEqual(['rsi_14', 'bb_pct']);
    expect(g.data.map((r: Json) => Object.fromEntries([['time', r.time], ...r.values.map((v: Json) => [v.name, v.value])]))).toEqual(rest.body.data);
  });

  it('when a feature is a multi-asset field, then its values appear per symbol', async () => {
    const r = await get(`/v1/multi-asset?symbols=BTC-USDT,ETH-USDT&exchange=perp&timeframe=1h&field=rsi_14&start=${iso(T0 + 20 * HOUR)}&end=${iso(T0 + 20 * HOUR)}`);
    const f = await get(`/v1/features?symbol=ETH-USDT&exchange=perp&timeframe=1h&features=rsi_14&start=${iso(T0 + 20 * HOUR)}&end=${iso(T0 + 20 * HOUR)}`);
    expect(r.body.data[0]['ETH-USDT']).toBe(f.body.data[0].rsi_14);
    expect(formatFloat(Number(r.body.data[0]['BTC-USDT']), 6)).toBe(r.body.data[0]['BTC-USDT']);
  });
});
