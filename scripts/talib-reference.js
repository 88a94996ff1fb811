#!/usr/bin/env node
// Produces test/fixtures/talib-reference.json: TA-Lib's own RSI, MACD, BBANDS and ATR over a
// deterministic series (600 bars with a flat stretch, zero-volume bars and a price gap), the
// vectors test/unit/indicators.test.ts checks src/domain/indicators.ts against.
//
// TA-Lib is not a dependency of the project (it builds C sources with node-gyp). To
// regenerate: `npm install --no-save talib && node scripts/talib-reference.js`.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const talib = require('talib');

function series() {
  let seed = 42;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const bars = [];
  let price = 65000;
  for (let i = 0; i < 600; i++) {
    if (i === 300) price *= 1.08; // a gap
    const flat = i >= 150 && i < 190; // flat prices
    const open = price;
    const close = flat ? price : price * (1 + (rnd() - 0.5) * 0.01);
    const high = flat ? price : Math.max(open, close) * (1 + rnd() * 0.002);
    const low = flat ? price : Math.min(open, close) * (1 - rnd() * 0.002);
    const volume = i % 50 < 3 ? 0 : Math.round(rnd() * 1000) / 10; // zero-volume bars
    bars.push({ open: +open.toFixed(2), high: +high.toFixed(2), low: +low.toFixed(2), close: +close.toFixed(2), volume });
    price = close;
  }
  return bars;
}

function run(name, inputs, opts) {
  const r = talib.execute({ name, startIdx: 0, endIdx: inputs.inReal ? inputs.inReal.length - 1 : inputs.close.length - 1, ...inputs, ...opts });
  if (r.error) throw new Error(`${name}: ${r.error}`);
  return { begIndex: r.begIndex, result: r.result };
}

const bars = series();
const close = bars.map((b) => b.close);
const high = bars.map((b) => b.high);
const low = bars.map((b) => b.low);
const out = {
  talib_version: talib.version,
  bars,
  rsi_9: run('RSI', { inReal: close }, { optInTimePeriod: 9 }),
  rsi_14: run('RSI', { inReal: close }, { optInTimePeriod: 14 }),
  rsi_21: run('RSI', { inReal: close }, { optInTimePeriod: 21 }),
  macd: run('MACD', { inReal: close }, { optInFastPeriod: 12, optInSlowPeriod: 26, optInSignalPeriod: 9 }),
  bbands: run('BBANDS', { inReal: close }, { optInTimePeriod: 20, optInNbDevUp: 2, optInNbDevDn: 2, optInMAType: 0 }),
  atr_14: run('ATR', { high, low, close }, { optInTimePeriod: 14 }),
};
const file = path.join(__dirname, '..', 'test', 'fixtures', 'talib-reference.json');
fs.writeFileSync(file, JSON.stringify(out) + '\n');
console.log(`wrote ${file}`);
