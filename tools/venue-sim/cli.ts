/**
 * Runs the venue simulator by hand, to try the service against it without the internet:
 *   npm run venue-sim -- [--port 9100] [--symbols BTC-USDT,ETH-USDT]
 * (a development tool, built from tools/ into dist/tools, not shipped). Prints the variables to
 * export (each venue's API and WS URL), then serves until Ctrl-C. A symbol BASE-QUOTE is the
 * Hyperliquid coin BASE and the Binance (spot, USD-M) and Bybit pair BASEQUOTE.
 */
import { parseArgs } from 'node:util';
import { VenueSimulator } from './index';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '9100' },
      symbols: { type: 'string', default: 'BTC-USDT,ETH-USDT' },
    },
  });
  const port = Number(values.port);
  const pairs = values.symbols.split(',').map((s) => s.trim().toUpperCase().split('-'));
  if (!Number.isInteger(port) || port < 0 || port > 65_535 || pairs.some((p) => p.length !== 2 || !p[0] || !p[1])) {
    throw new Error('usage: cli.js [--port 9100] [--symbols BTC-USDT,ETH-USDT]');
  }
  await run(port, pairs);
}

async function run(port: number, pairs: string[][]): Promise<void> {
  const pairNames = pairs.map(([base, quote]) => base + quote);
  const sim = await VenueSimulator.start({ port, hyperliquid: pairs.map(([base]) => base), binance: pairNames, binancePerp: pairNames, bybit: pairNames });
  for (const [name, value] of Object.entries(sim.env)) process.stdout.write(`export ${name}=${value}\n`);
  process.stderr.write(`# venue simulator up; then: INGEST_SYMBOLS=${pairs.map((p) => p.join('-')).join(',')} npm start\n`);
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: Error) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(2);
});
