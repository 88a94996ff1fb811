/** The ingestion settings users write, and the venue time alignment rule. */
import { loadConfig } from '../../src/config';
import { alignVenueTime, parseSince, parseSymbolList, parseSymbolMap } from '../../src/domain/ingest-settings';
import { parseDuration } from '../../src/domain/time';
import { Exchanges } from '../../src/domain/exchanges';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('ingestion settings', () => {
  it('when a duration has a unit, then it is read in that unit, days included', () => {
    expect(parseDuration('30d')).toBe(30 * 86_400_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('90')).toBe(90_000);
    expect(parseDuration('3w')).toBeNull();
  });

  it('when --since is a duration, an ISO time or Unix ms, then it names the backfill start', () => {
    expect(parseSince('30d', NOW)).toBe(NOW - 30 * 86_400_000);
    expect(parseSince('12h', NOW)).toBe(NOW - 12 * 3_600_000);
    expect(parseSince('2026-11-01T00:00:00Z', NOW)).toBe(Date.UTC(2026, 10, 1));
    expect(parseSince('2026-11-01', NOW)).toBe(Date.UTC(2026, 10, 1));
    expect(parseSince('1761955200000', NOW)).toBe(1761955200000);
    expect(() => parseSince('yesterday', NOW)).toThrow(/neither a duration/);
  });

  it('when symbols are listed, then they are validated, upper-cased and deduplicated', () => {
    expect(parseSymbolList(' btc-usdt, ETH-USDT,BTC-USDT ')).toEqual(['BTC-USDT', 'ETH-USDT']);
    expect(() => parseSymbolList('BTCUSDT')).toThrow(/not a symbol/);
    expect(() => parseSymbolList(' , ')).toThrow(/at least one/);
  });

  it('when the symbol map is JSON of venue names, then it is kept; anything else names the problem', () => {
    expect(parseSymbolMap('{"pepe-usdt":{"hyperliquid":"kPEPE"}}')).toEqual({ 'PEPE-USDT': { hyperliquid: { instrument: 'kPEPE', scale: 1 } } });
    expect(parseSymbolMap('{"PEPE-USDT":{"binance-perp":{"instrument":"1000PEPEUSDT","scale":1000}}}')).toEqual({
      'PEPE-USDT': { 'binance-perp': { instrument: '1000PEPEUSDT', scale: 1000 } },
    });
    expect(() => parseSymbolMap('{"PEPE-USDT":{"binance-perp":{"instrument":"1000PEPEUSDT","scale":3}}}')).toThrow(/power of ten/);
    expect(() => parseSymbolMap('{"PEPE-USDT":{"binance-perp":{"scale":1000}}}')).toThrow(/instrument name/);
    expect(() => parseSymbolMap('[1]')).toThrow(/object keyed by symbol/);
    expect(() => parseSymbolMap('{"BTC-USDT":{"binance":""}}')).toThrow(/instrument name/);
    expect(() => parseSymbolMap('{')).toThrow(/must be JSON/);
  });

  it('when --exchange names a served exchange, then its API name follows (case-insensitive); another name is INVALID_EXCHANGE', () => {
    const v = new Exchanges(['hl', 'bn'], { perp: 'hl', spot: 'bn' });
    expect(v.parseExchange('HL')).toBe('hl');
    expect(v.isPerpetual('hl')).toBe(true);
    expect(v.isPerpetual('bn')).toBe(false);
    expect(() => v.parseExchange('perp')).toThrow(expect.objectContaining({ code: 'INVALID_EXCHANGE' }));
  });

  it('when a venue time is within 5 s of its boundary, then it is aligned; farther off, refused', () => {
    expect(alignVenueTime(1683849600076, 3_600_000)).toBe(1683849600000);
    expect(alignVenueTime(NOW - 4_999, 60_000)).toBe(NOW);
    expect(alignVenueTime(NOW + 5_001, 60_000)).toBeNull();
    expect(alignVenueTime(NOW + 30_000, 60_000)).toBeNull();
  });

  it('when the ingest variables are set, then the configuration carries them, and bad values name their variable', () => {
    const c = loadConfig({ INGEST_SYMBOLS: 'BTC-USDT', HYPERLIQUID_API_URL: 'http://127.0.0.1:9/hl/', INGEST_SINCE: '2d' });
    expect(c.ingest).toMatchObject({
      symbols: ['BTC-USDT'],
      since: '2d',
      reconcileCandles: 100,
      hyperliquid: { apiUrl: 'http://127.0.0.1:9/hl', wsUrl: 'wss://api.hyperliquid.xyz/ws', weightPerMinute: 600 },
      binance: { apiUrl: 'https://api.binance.com', wsUrl: 'wss://stream.binance.com:9443', weightPerMinute: 3000 },
    });
    expect(c.seedDemo).toBe(false); // INGEST_SYMBOLS: the venues' data, not the demo's
    expect(loadConfig({ INGEST_SYMBOLS: 'BTC-USDT', SEED_DEMO: 'true' }).seedDemo).toBe(true);
    expect(loadConfig({}).seedDemo).toBe(true);
    expect(loadConfig({}).ingest.symbols).toEqual([]);
    expect(() => loadConfig({ INGEST_SYMBOLS: 'nope' })).toThrow(/INGEST_SYMBOLS/);
    expect(() => loadConfig({ INGEST_SINCE: 'soon' })).toThrow(/INGEST_SINCE/);
    expect(() => loadConfig({ BINANCE_WS_URL: 'http://x' })).toThrow(/BINANCE_WS_URL/);
    expect(() => loadConfig({ INGEST_SYMBOL_MAP: '{' })).toThrow(/INGEST_SYMBOL_MAP/);
    expect(() => loadConfig({ SEED_DEMO: 'maybe' })).toThrow(/SEED_DEMO/);
  });
});
