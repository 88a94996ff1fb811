/**
 * The scale benchmark's input: one symbol's 1m candles as the CSV `mds import candles` reads. A
 * deterministic random walk seeded by the symbol's number, so a symbol gets the same prices
 * whatever day the history is laid on. Prices are integers of ticks, so every row is valid exactly
 * (open the previous close, high and low bounding both, low and volume at least one unit of their
 * last place); each symbol has its own level (about 0.05 to 60,000) and places (2 to 7: about six
 * significant digits, as venues quote).
 */
import { closeSync, openSync, writeSync } from 'node:fs';

const MINUTE = 60_000;
const VOLUME_PLACES = 4;

/** mulberry32: a small, fast, seeded generator of uniforms in [0, 1). */
function uniforms(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal deviates (Box-Muller, both of each pair used). */
function normals(u: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const z = spare;
      spare = null;
      return z;
    }
    const r = Math.sqrt(-2 * Math.log(1 - u()));
    const a = 2 * Math.PI * u();
    spare = r * Math.sin(a);
    return r * Math.cos(a);
  };
}

/** An integer count of ticks as a plain decimal with `places` places. */
function decimal(ticks: number, places: number): string {
  const s = String(ticks).padStart(places + 1, '0');
  return `${s.slice(0, -places)}.${s.slice(-places)}`;
}

/** The ISO time `mds` reads, `YYYY-MM-DDTHH:MM:SSZ`. */
const isoMinute = (ms: number) => new Date(ms).toISOString().slice(0, 19) + 'Z';

/**
 * Write `minutes` 1m candles of symbol number `index` from `startMs` (a minute boundary) into
 * `file`. Returns the number of rows written.
 */
export function writeSymbolCsv(file: string, index: number, startMs: number, minutes: number): number {
  const u = uniforms(0x5ca1e000 + index * 7919);
  const z = normals(u);
  const level = Math.exp(Math.log(0.05) + u() * Math.log(60_000 / 0.05));
  const places = Math.min(7, Math.max(2, 5 - Math.floor(Math.log10(level))));
  const scale = 10 ** places;
  const start = Math.round(level * scale);
  const sigma = 0.0006 + u() * 0.0006; // per minute: 1.4% to 2.9% a day
  const volumeMean = Math.log(5 + u() * 5_000);
  const fd = openSync(file, 'w');
  try {
    let lines: string[] = ['time,open,high,low,close,volume'];
    let close = start;
    for (let i = 0; i < minutes; i++) {
      const open = close;
      // A weak pull towards the starting level keeps a year's walk within a few times it.
      const pull = -0.00002 * Math.log(open / start);
      close = Math.max(1_000, Math.round(open * Math.exp(pull + sigma * z())));
      const high = Math.max(open, close) + Math.round(Math.abs(z()) * sigma * 0.5 * Math.max(open, close));
      const low = Math.max(1, Math.min(open, close) - Math.round(Math.abs(z()) * sigma * 0.5 * Math.min(open, close)));
      const volume = Math.max(1, Math.round(Math.exp(volumeMean + 0.8 * z()) * 10 ** VOLUME_PLACES));
      lines.push(
        `${isoMinute(startMs + i * MINUTE)},${decimal(open, places)},${decimal(high, places)},${decimal(low, places)},${decimal(close, places)},${decimal(volume, VOLUME_PLACES)}`,
      );
      if (lines.length === 10_000) {
        writeSync(fd, lines.join('\n') + '\n');
        lines = [];
      }
    }
    if (lines.length > 0) writeSync(fd, lines.join('\n') + '\n');
  } finally {
    closeSync(fd);
  }
  return minutes;
}
