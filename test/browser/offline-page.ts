/**
 * What the browser tests of the pages share: chromium's flags (those of api-docs-page.test.ts), where
 * screenshots go (CI artefacts, printed by .ci/run), and a page that may reach only the test
 * server: every other request is aborted and recorded, and so are console errors.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const SCREENSHOTS = path.join(__dirname, '..', '..', 'test-artifacts', 'screenshots');

export interface OfflinePage {
  page: Page;
  /** Requests that tried to leave the machine (all aborted). */
  outside: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
}

export async function offlinePage(browser: Browser, origin: string, viewport = { width: 1366, height: 768 }): Promise<OfflinePage> {
  const page = await browser.newPage({ viewport });
  const outside: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    outside.push(url);
    return route.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, outside, errors };
}
