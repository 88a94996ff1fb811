/**
 * GET /graphiql in a real browser (Debian's chromium through playwright-core) with no network
 * beyond the test server: every other request is aborted and the test fails if one was tried
 * (Apollo Sandbox at /graphql would need Apollo's CDN). GraphiQL 5, its Monaco workers and
 * styles all come from this server. The page built by scripts/build-web.js.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { HOUR, T0, iso, loadFixtures } from '../helpers/fixtures';
import { manualClock, startTestServer, type TestServer } from '../helpers/server';
import { describeWith } from '../helpers/requirements';
import { pollUntil } from '../helpers/wait';
import { CHROMIUM_ARGS, SCREENSHOTS, offlinePage } from './offline-page';

const ROOT = path.join(__dirname, '..', '..');
const NOW = T0 + 800 * HOUR + 30_000;
const SUBSCRIPTIONS = readFileSync(path.join(ROOT, 'schema.graphql'), 'utf8').includes('candleClosed(');

describeWith('CHROMIUM', 'GraphiQL at /graphiql in headless chromium, offline', (chromiumPath) => {
  let srv: TestServer;
  let browser: Browser;
  const clock = manualClock(NOW);

  beforeAll(async () => {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-web.js'), 'graphiql'], { cwd: ROOT, stdio: 'inherit' });
    mkdirSync(SCREENSHOTS, { recursive: true });
    srv = await startTestServer({ clock: clock.now });
    await loadFixtures(srv.services, NOW);
    browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  /** The page with the key entered in its key field, the editor ready; the key each POST /graphql carried. */
  async function open(key: string) {
    const opened = await offlinePage(browser, srv.url);
    const keysSent: string[] = [];
    opened.page.on('request', (r) => {
      if (r.url() === `${srv.url}/graphql` && r.method() === 'POST') keysSent.push(r.headers()['x-api-key'] ?? '');
    });
    await opened.page.goto(`${srv.url}/graphiql`);
    await opened.page.fill('#key-input', key);
    await opened.page.click('#key-form button');
    await opened.page.waitForSelector('.graphiql-query-editor .monaco-editor', { timeout: 30_000 });
    return { ...opened, keysSent };
  }

  /**
   * Replace the query editor's text with the operation `name`, and run it once GraphiQL has read
   * it (the tab takes its name). Returns how many runs went out naming the previous operation
   * (each a 400 the browser logs).
   */
  async function run(page: Page, name: string, operation: string): Promise<number> {
    await page.click('.graphiql-query-editor .view-lines');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(operation);
    await page.locator('.graphiql-tab-active', { hasText: name }).waitFor();
    // GraphiQL takes the operation's name from the editor a moment after the tab shows it: a run
    // sent before that names the previous operation. Run again until it names this one.
    for (let i = 0; i < 20; i++) {
      await page.click('.graphiql-execute-button');
      const stale = await page
        .locator('.result-window', { hasText: 'OPERATION_RESOLUTION_FAILURE' })
        .waitFor({ timeout: 1_000 })
        .then(() => true, () => false);
      if (!stale) return i;
    }
    throw new Error(`GraphiQL kept running another operation than ${name}`);
  }

  const result = (page: Page) => page.locator('.result-window').innerText();

  it('when a query is run with the key, then GraphiQL shows the result, every request carrying the key and none leaving the machine', async () => {
    const key = await srv.key('pro');
    const { page, outside, errors, keysSent } = await open(key);
    const staleRuns = await run(page, 'LastCandle', `query LastCandle { market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "${iso(T0 + 799 * HOUR)}") { count data { time close } } } }`);
    await page.locator('.result-window', { hasText: '"count"' }).waitFor({ timeout: 30_000 });
    const text = (await result(page)).replace(/\s+/g, '');
    expect(text).toContain(`"count":1`);
    expect(text).toContain(`"time":"${iso(T0 + 799 * HOUR).replace('.000Z', '+00:00')}"`);
    expect(keysSent.length).toBeGreaterThanOrEqual(2 + staleRuns); // the introspection and the query
    expect(new Set(keysSent)).toEqual(new Set([key]));
    await page.screenshot({ path: path.join(SCREENSHOTS, 'graphiql.png') });
    expect(outside).toEqual([]);
    expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
    expect(errors.length).toBe(staleRuns);
    await page.close();
  }, 90_000);

  (SUBSCRIPTIONS ? it : it.skip)('when a subscription is run, then each event shows as it arrives (over graphql-ws with the key)', async () => {
    const { page, outside, errors } = await open(await srv.key('pro'));
    const staleRuns = await run(page, 'Candles', 'subscription Candles { candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "1h") { time close } }');
    const time = T0 + 800 * HOUR;
    clock.set(time + HOUR + 30_000);
    const series = { id: (await srv.services.store.series.idOf({ exchange: 'perp', symbol: 'BTC-USDT' }))!, symbol: 'BTC-USDT' };
    const candle = { time, open: '116.05', high: '117.5', low: '115', close: '116.5', volume: '2' };
    // The subscription opens a moment after the click (GraphiQL is a large page): wait until the
    // server counts it open, then store the candle and wait for its event.
    const openSubscriptions = async () => Number(/^mds_graphql_subscriptions (\d+)$/m.exec(await (await fetch(`${srv.url}/metrics`)).text())?.[1] ?? 0);
    expect(await pollUntil(openSubscriptions, (n) => n > 0, { withinMs: 60_000, everyMs: 200 })).toBeGreaterThan(0);
    await srv.services.writer.candles(series, '1h', [candle]);
    const shown = await page
      .locator('.result-window', { hasText: 'candleClosed' })
      .waitFor({ timeout: 30_000 })
      .then(() => true, () => false);
    expect(shown).toBe(true);
    const text = (await result(page)).replace(/\s+/g, '');
    expect(text).toContain(`"candleClosed":{"time":"${iso(time).replace('.000Z', '+00:00')}","close":"116.500000"}`);
    expect(outside).toEqual([]);
    // Nothing but the 400s of the runs that went out before GraphiQL had read the new name.
    expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
    expect(errors.length).toBe(staleRuns);
    await page.close();
  }, 90_000);
});
