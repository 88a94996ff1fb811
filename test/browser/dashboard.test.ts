/**
 * GET /dashboard in a real browser (Debian's chromium through playwright-core) with no
 * network beyond the test server: every other request is aborted and the test fails if one
 * was tried. The market fixtures at a fixed clock; the page built by scripts/build-web.js.
 * Screenshots at desktop and phone width go to test-artifacts/screenshots/ (CI artefacts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { HOUR, T0, iso, loadFixtures, perpClose } from '../helpers/fixtures';
import { csvFile } from '../helpers/csv';
import { manualClock, startTestServer, type TestServer } from '../helpers/server';
import { describeWith } from '../helpers/requirements';
import { CHROMIUM_ARGS, SCREENSHOTS, offlinePage, type OfflinePage } from './offline-page';

const ROOT = path.join(__dirname, '..', '..');
/** Fixture candles run to T0 + 799 h; the clock stands just after the last one closed. */
const NOW = T0 + 800 * HOUR + 30_000;
/** The legend names the newest candle once a window is drawn. */
const DRAWN = '#legend[data-last-time]:not([data-last-time=""])';
const SUBSCRIPTIONS = readFileSync(path.join(ROOT, 'schema.graphql'), 'utf8').includes('candleClosed(');

/** What the pixel count uses of a canvas (this program has no DOM types). */
interface Canvas {
  width: number;
  height: number;
  getBoundingClientRect(): { width: number; height: number; top: number; bottom: number };
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
}

/**
 * Drawn pixels (not background, not grid) inside a vertical band of the chart's panes (the
 * axes left out). Runs in the page, on the chart's element (no DOM types in this program).
 */
function drawnPixels(page: Page, fromY: number, toY: number): Promise<number> {
  return page.locator('#chart').evaluate(
    (chart, [from, to]) => {
      let n = 0;
      const width = chart.getBoundingClientRect().width;
      for (const c of Array.from(chart.querySelectorAll('canvas')) as Canvas[]) {
        const r = c.getBoundingClientRect();
        if (r.width < width / 2 || r.height === 0 || r.bottom <= from || r.top >= to) continue;
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const bg = [14, 17, 23];
        for (let i = 0; i < data.length; i += 4) {
          const y = r.top + ((i / 4 / c.width) | 0) * (r.height / c.height);
          if (y < from || y >= to || data[i + 3] === 0) continue;
          if (Math.abs(data[i] - bg[0]) + Math.abs(data[i + 1] - bg[1]) + Math.abs(data[i + 2] - bg[2]) > 60) n++;
        }
      }
      return n;
    },
    [fromY, toY],
  );
}

describeWith('CHROMIUM', 'the dashboard in headless chromium, offline', (chromiumPath) => {
  let srv: TestServer;
  let browser: Browser;
  const clock = manualClock(NOW);

  beforeAll(async () => {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-web.js'), 'dashboard'], { cwd: ROOT, stdio: 'inherit' });
    mkdirSync(SCREENSHOTS, { recursive: true });
    srv = await startTestServer({ clock: clock.now });
    await loadFixtures(srv.services, NOW);
    await srv.services.quality.computeAll(NOW);
    browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  async function open(key: string, view: string, viewport = { width: 1366, height: 768 }): Promise<OfflinePage> {
    const opened = await offlinePage(browser, srv.url, viewport);
    await opened.page.addInitScript(`sessionStorage.setItem('mds.apiKey', ${JSON.stringify(key)})`);
    await opened.page.goto(`${srv.url}/dashboard#${view}`);
    await opened.page.waitForSelector(DRAWN, { state: 'attached', timeout: 30_000 });
    return opened;
  }

  it('when a pro key opens the perp market, then candles are drawn, the RSI, MACD and funding panes have content, and nothing leaves the machine', async () => {
    const { page, outside, errors } = await open(await srv.key('pro'), 'perp/BTC-USDT/1h');
    expect(await page.getAttribute('#legend', 'data-last-time')).toBe(new Date(T0 + 799 * HOUR).toISOString());
    expect(await page.getAttribute('#chart', 'data-panes')).toBe('main rsi macd funding');
    // Each pane's band of the chart, from the top of its label to the next one's.
    const chart = (await page.locator('#chart').boundingBox())!;
    const tops = [chart.y];
    for (const pane of ['rsi', 'macd', 'funding']) {
      const label = page.locator(`.pane-label[data-pane="${pane}"]`);
      await expect(label.isVisible()).resolves.toBe(true);
      tops.push((await label.boundingBox())!.y - 4);
    }
    tops.push(chart.y + chart.height - 30); // the time axis below
    const pixels = await Promise.all(tops.slice(0, -1).map((top, i) => drawnPixels(page, top, tops[i + 1])));
    expect(pixels.map((n) => n > 500)).toEqual([true, true, true, true]);
    // The DQS badge of every timeframe the fixtures have (1h and its rollups).
    for (const tf of ['1h', '4h', '1d']) await expect(page.locator(`.tf[data-timeframe="${tf}"] .dqs`).textContent()).resolves.toMatch(/^\d\.\d{4}$/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-desktop.png') });
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('when the spot market is picked, then it is drawn without a funding pane', async () => {
    const { page, errors } = await open(await srv.key('pro'), 'perp/BTC-USDT/1h');
    await page.selectOption('#market', 'spot/ETH-USDT');
    await page.locator('#legend-market', { hasText: 'ETH-USDT · spot' }).waitFor();
    await page.waitForSelector(DRAWN, { state: 'attached' });
    expect(await page.getAttribute('#chart', 'data-panes')).toBe('main rsi macd');
    expect(await page.locator('.pane-label[data-pane="funding"]').count()).toBe(0);
    expect(page.url()).toMatch(/#spot\/ETH-USDT\/1h$/);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('when a free key asks for 1m, then the refusal is shown with its message and the upgrade link', async () => {
    const key = await srv.key('free');
    const { page, errors } = await open(key, 'spot/ETH-USDT/1h');
    await page.click('.tf[data-timeframe="1m"]');
    await page.waitForSelector('#banner:not([hidden])');
    // The same refusal the API gives a client of its own.
    const direct = (await (await srv.gql('{ market(exchange: "spot", symbol: "ETH-USDT") { candles(timeframe: "1m", start: "2024-01-01") { count } } }', {}, key)).json()) as {
      errors: Array<{ message: string; extensions: { code: string; upgrade_url: string } }>;
    };
    expect(direct.errors[0].extensions.code).toBe('TIER_LIMIT_EXCEEDED');
    expect(await page.getAttribute('#banner', 'data-code')).toBe('TIER_LIMIT_EXCEEDED');
    expect(await page.textContent('#banner-text')).toContain(direct.errors[0].message);
    expect(await page.isVisible('#banner-link')).toBe(true);
    expect(await page.getAttribute('#banner-link', 'href')).toBe(direct.errors[0].extensions.upgrade_url);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('when the page is opened at phone width, then it fits the width and the chart is drawn', async () => {
    const { page, outside, errors } = await open(await srv.key('pro'), 'perp/BTC-USDT/1h', { width: 390, height: 844 });
    expect(await page.locator('html').evaluate((html) => html.scrollWidth)).toBeLessThanOrEqual(390);
    const chart = (await page.locator('#chart').boundingBox())!;
    expect(await drawnPixels(page, chart.y, chart.y + chart.height)).toBeGreaterThan(2000);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-phone.png') });
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('when the user drags the chart back in time, then older windows are loaded until the first candle', async () => {
    const { page, errors } = await open(await srv.key('pro'), 'spot/BTC-USDT/1h');
    // The newest 500 of the 800 hourly candles first.
    expect(await page.getAttribute('#chart', 'data-first-time')).toBe(iso(T0 + 300 * HOUR));
    const box = (await page.locator('#chart').boundingBox())!;
    for (let i = 0; i < 12 && (await page.getAttribute('#chart', 'data-first-time')) !== iso(T0); i++) {
      await page.mouse.move(box.x + 100, box.y + 120);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width - 100, box.y + 120, { steps: 8 });
      await page.mouse.up();
      await page.waitForTimeout(200);
    }
    expect(await page.getAttribute('#chart', 'data-first-time')).toBe(iso(T0));
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('when something ingests the market, then its ingest status and lag are shown; otherwise nothing is', async () => {
    const eth = (await srv.services.store.series.idOf({ exchange: 'spot', symbol: 'ETH-USDT' }))!;
    await srv.services.store.ingest.reportStatus([{ seriesId: eth, connected: true }], clock.now());
    const { page, errors } = await open(await srv.key('pro'), 'spot/ETH-USDT/1m');
    await page.waitForSelector('#ingest:not([hidden])');
    expect(await page.textContent('#ingest')).toMatch(/^ingest connected · lag \d+ (s|min)$/);
    await page.selectOption('#market', 'spot/BTC-USDT');
    await page.locator('#legend-market', { hasText: 'BTC-USDT · spot' }).waitFor();
    await page.waitForSelector('#ingest', { state: 'hidden' });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('when a wrong key is entered, then the refusal is shown and the key form comes back', async () => {
    const page = await browser.newPage();
    await page.goto(`${srv.url}/dashboard`);
    await page.fill('#key-input', 'qp_not-a-key');
    await page.click('#key-form button');
    await page.waitForSelector('#banner:not([hidden])');
    expect(await page.getAttribute('#banner', 'data-code')).toBe('UNAUTHORIZED');
    expect(await page.isVisible('#key-form')).toBe(true);
    expect(await page.evaluate("sessionStorage.getItem('mds.apiKey')")).toBeNull();
    await page.close();
  }, 60_000);

  it('when a perpetual has recorded context and a spot market trade flow, then the pane under the price shows open interest, resp. the taker-buy share', async () => {
    const eth = (await srv.services.store.series.idOf({ exchange: 'perp', symbol: 'ETH-USDT' }))!;
    const from = T0 + 790 * HOUR;
    const minutes = Array.from({ length: 600 }, (_, i) => {
      const oi = String(5000 + (i % 90) * 3);
      return { time: from + i * 60_000, openInterestOpen: oi, openInterestHigh: oi, openInterestLow: oi, openInterest: oi, markPrice: '1100', oraclePrice: '1100.5', midPrice: null, predictedFundingRate: '0.0000125', venuePremium: null };
    });
    await srv.services.writer.derivatives([{ series: { id: eth, symbol: 'ETH-USDT' }, rows: minutes }]);
    const flow = await srv.services.store.series.ensure({ exchange: 'spot', symbol: 'FLOW-USDT' });
    const hours = Array.from({ length: 100 }, (_, h) => ({
      time: T0 + (700 + h) * HOUR, open: '10', high: '11', low: '9', close: String(10 + (h % 5) / 10), volume: '100',
      quoteVolume: '1000', trades: '50', takerBuyVolume: String(30 + (h % 40)), takerBuyQuoteVolume: '300',
    }));
    await srv.services.writer.candles({ id: flow, symbol: 'FLOW-USDT' }, '1h', hours);

    const perp = await open(await srv.key('pro'), 'perp/ETH-USDT/1h');
    expect(await perp.page.getAttribute('#chart', 'data-panes')).toBe('main oi rsi macd');
    const oi = (await perp.page.locator('.pane-label[data-pane="oi"]').boundingBox())!;
    const rsi = (await perp.page.locator('.pane-label[data-pane="rsi"]').boundingBox())!;
    expect(oi.y).toBeLessThan(rsi.y);
    expect(await drawnPixels(perp.page, oi.y - 4, rsi.y - 4)).toBeGreaterThan(100);
    expect(perp.errors).toEqual([]);
    await perp.page.close();

    const spot = await open(await srv.key('pro'), 'spot/FLOW-USDT/1h');
    expect(await spot.page.getAttribute('#chart', 'data-panes')).toBe('main taker rsi macd');
    expect(await spot.page.textContent('.pane-label[data-pane="taker"]')).toBe('Taker-buy share of volume %');
    await spot.page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-taker-share.png') });
    expect(spot.outside).toEqual([]);
    expect(spot.errors).toEqual([]);
    await spot.page.close();
  }, 90_000);

  /** Store through `store` until the page shows `selector`: the page's subscriptions open a moment after its socket does. */
  async function storeUntilShown(page: Page, selector: string, store: () => Promise<void>): Promise<void> {
    for (let i = 0; i < 30; i++) {
      await store();
      if (await page.waitForSelector(selector, { state: 'attached', timeout: 500 }).then(() => true, () => false)) return;
    }
    throw new Error(`never shown: ${selector}`);
  }

  (SUBSCRIPTIONS ? it : it.skip)('when a candle and a funding rate are imported while the page is open, then they appear without a reload', async () => {
    const { page, errors } = await open(await srv.key('pro'), 'perp/BTC-USDT/1h');
    await page.waitForSelector('#live[data-status="live"]', { timeout: 15_000 });
    const time = T0 + 800 * HOUR;
    clock.set(time + HOUR + 30_000);
    const prev = perpClose(799);
    const close = perpClose(800) + 5;
    // Imported as `mds import` does: the import, then its rollups, features and events.
    const market = { exchange: 'perp', symbol: 'BTC-USDT' };
    const candleCsv = csvFile(['time,open,high,low,close,volume', `${new Date(time).toISOString()},${prev},${close + 1},${prev - 1},${close},4.5`]);
    await storeUntilShown(page, `#legend[data-last-time="${iso(time)}"]`, async () => {
      const r = await srv.services.importer.importCandles(market, '1h', candleCsv);
      await srv.services.recompute.afterCandlesChanged(r.seriesId, '1h', r.from!, r.to!, clock.now());
    });
    expect(await page.textContent('#legend-ohlc')).toContain(`C ${close.toFixed(4)}`);
    const fundingCsv = csvFile(['time,rate', `${new Date(time).toISOString()},0.00002500`]);
    await storeUntilShown(page, `#chart[data-last-funding="${iso(time)}"]`, async () => {
      const r = await srv.services.importer.importFunding(market, fundingCsv);
      await srv.services.recompute.afterFundingChanged(r.seriesId, r.from!, r.to!);
    });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
