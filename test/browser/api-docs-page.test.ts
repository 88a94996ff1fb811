/**
 * GET /docs in a real browser: Debian's chromium driven by playwright-core. The page loads
 * the renderer from this server (no network beyond it), lists the operations of the
 * document, and "Try it out" on GET /v1/ohlcv returns data from the running server.
 *
 * Needs /usr/bin/chromium (CHROMIUM_PATH to override): .ci/run installs it; elsewhere the
 * test skips with the reason, or fails under REQUIRE_SERVICES=1.
 */
import { chromium, type Browser } from 'playwright-core';
import { describeWith } from '../helpers/requirements';
import { startTestServer, type TestServer } from '../helpers/server';

describeWith('CHROMIUM', 'the docs page in headless chromium', (chromiumPath) => {
  let srv: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    srv = await startTestServer({ env: { SEED_DEMO: 'true' } });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  it('when /docs is opened, then it lists the operations, and "Try it out" on /v1/ohlcv returns candles', async () => {
    const key = await srv.key('pro');
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(srv.url) && !r.url().startsWith('data:')) outside.push(r.url());
    });
    const consoleErrors: string[] = [];
    page.on('pageerror', (e) => consoleErrors.push(e.message));

    await page.goto(`${srv.url}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')));
    expect(paths).toEqual(expect.arrayContaining(['/v1/ohlcv', '/v1/funding', '/v1/features', '/v1/multi-asset', '/v1/quality', '/v1/auth/keys', '/health']));

    // Authorize as a user would (the Authorize dialog), then try GET /v1/ohlcv.
    await page.click('button.authorize');
    const dialog = page.locator('.auth-container').filter({ hasText: 'X-API-Key' });
    await dialog.locator('input').fill(key);
    await dialog.locator('button.authorize').click();
    await page.click('button.close-modal');

    const op = page.locator('#operations-Market_data-getOhlcv');
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    const start = new Date(srv.services.clock() - 6 * 3_600_000).toISOString();
    await op.locator('tr[data-param-name="symbol"] input').fill('BTC-USDT');
    await op.locator('tr[data-param-name="exchange"] select').selectOption(srv.services.exchanges.perpetuals[0]);
    await op.locator('tr[data-param-name="timeframe"] select').selectOption('1h');
    await op.locator('tr[data-param-name="start"] input').fill(start);
    await op.locator('button.execute').click();

    const status = op.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    const body = JSON.parse(await op.locator('.live-responses-table tr.response .response-col_description pre.microlight').first().innerText());
    expect({ status: (await status.innerText()).trim(), body }).toEqual({ status: '200', body: expect.anything() });
    expect(body).toEqual(expect.objectContaining({ symbol: 'BTC-USDT', timeframe: '1h', count: expect.any(Number) }));
    expect(body.count).toBeGreaterThan(0);
    expect(body.data[0]).toEqual(expect.objectContaining({ time: expect.any(String), close: expect.stringMatching(/^\d+\.\d{6}$/) }));

    expect(outside).toEqual([]);
    expect(consoleErrors).toEqual([]);
  }, 120_000);
});
