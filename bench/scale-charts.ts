/**
 * Line charts for the scale benchmark, as SVG built here and rasterized to PNG by resvg
 * (`@resvg/resvg-js`: a prebuilt binary from the npm registry, no browser, no download; text in
 * the system's DejaVu Sans). Small multiples: a figure is a column of panels, each a plot with
 * its own axes and legend. The y axis starts at 0, so a flat curve looks flat.
 */
import { Resvg } from '@resvg/resvg-js';

export interface Line {
  label: string;
  color: string;
  dashed?: boolean;
  points: ReadonlyArray<readonly [number, number]>;
}

export interface Panel {
  title: string;
  xLabel: string;
  yLabel: string;
  /** Logarithmic x axis (the checkpoints 1M, 10M, 50M spread evenly). */
  xLog?: boolean;
  lines: Line[];
  /** Vertical guides at these x values (e.g. the checkpoints on the import curve). */
  marks?: number[];
}

export const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];

const PLOT_W = 380;
const PLOT_H = 250;
const LEFT = 70;
const TOP = 40;
const LEGEND_W = 240;
const PANEL_W = LEFT + PLOT_W + 20 + LEGEND_W;
const PANEL_H = TOP + PLOT_H + 56;
const HEADER = 48;

/** 1,000,000 -> 1M, 57,600 -> 57.6k, 0.5 -> 0.5. */
export function compact(v: number): string {
  const a = Math.abs(v);
  const unit = a >= 1e9 ? [1e9, 'G'] : a >= 1e6 ? [1e6, 'M'] : a >= 1e3 ? [1e3, 'k'] : [1, ''];
  const x = v / (unit[0] as number);
  return `${Number(x.toPrecision(3))}${unit[1]}`;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** About `n` round ticks (1, 2 or 5 times a power of ten) from 0 to the first at or above `max`. */
function linearTicks(max: number, n = 5): number[] {
  const raw = max / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw)!;
  const ticks = [0];
  while (ticks[ticks.length - 1] < max) ticks.push(Number((ticks.length * step).toPrecision(12)));
  return ticks;
}

/** A log axis is labelled at the data's own x values (the checkpoints), or at the powers of ten when there are many. */
function logTicks(xs: number[], lo: number, hi: number): number[] {
  const distinct = [...new Set(xs)].sort((a, b) => a - b);
  if (distinct.length <= 8) return distinct;
  const decades: number[] = [];
  for (let e = Math.ceil(Math.log10(lo)); 10 ** e <= hi; e++) decades.push(10 ** e);
  return decades;
}

function panelSvg(p: Panel, ox: number, oy: number): string {
  const pts = p.lines.flatMap((l) => l.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const xs = [...pts.map(([x]) => x), ...(p.marks ?? [])];
  let x0 = xs.length ? Math.min(...xs) : 1;
  let x1 = xs.length ? Math.max(...xs) : 10;
  if (p.xLog) {
    [x0, x1] = x0 === x1 ? [x0 / 2, x1 * 2] : [x0 / 1.25, x1 * 1.25];
  } else {
    [x0, x1] = x0 === x1 ? [0, x1 * 2 || 1] : [0, x1 * 1.04];
  }
  const yTicks = linearTicks(Math.max(...pts.map(([, y]) => y), 1e-9) * 1.08);
  const y1 = yTicks[yTicks.length - 1];
  const sx = (x: number) =>
    ox + LEFT + (p.xLog ? (Math.log(x / x0) / Math.log(x1 / x0)) * PLOT_W : ((x - x0) / (x1 - x0)) * PLOT_W);
  const sy = (y: number) => oy + TOP + PLOT_H - (y / y1) * PLOT_H;
  const out: string[] = [];
  out.push(`<text x="${ox + LEFT}" y="${oy + 24}" font-size="15" font-weight="bold">${esc(p.title)}</text>`);
  out.push(`<rect x="${ox + LEFT}" y="${oy + TOP}" width="${PLOT_W}" height="${PLOT_H}" fill="none" stroke="#999"/>`);
  for (const t of yTicks) {
    out.push(`<line x1="${ox + LEFT}" x2="${ox + LEFT + PLOT_W}" y1="${sy(t)}" y2="${sy(t)}" stroke="#e6e6e6"/>`);
    out.push(`<text x="${ox + LEFT - 6}" y="${sy(t) + 4}" font-size="11" text-anchor="end">${compact(t)}</text>`);
  }
  const xTicks = p.xLog ? logTicks(xs, x0, x1) : linearTicks(x1).filter((t) => t <= x1);
  for (const t of xTicks) {
    out.push(`<line x1="${sx(t)}" x2="${sx(t)}" y1="${oy + TOP}" y2="${oy + TOP + PLOT_H}" stroke="#f0f0f0"/>`);
    out.push(`<text x="${sx(t)}" y="${oy + TOP + PLOT_H + 16}" font-size="11" text-anchor="middle">${compact(t)}</text>`);
  }
  for (const m of p.marks ?? []) {
    out.push(`<line x1="${sx(m)}" x2="${sx(m)}" y1="${oy + TOP}" y2="${oy + TOP + PLOT_H}" stroke="#bbb" stroke-dasharray="3 3"/>`);
  }
  out.push(`<text x="${ox + LEFT + PLOT_W / 2}" y="${oy + TOP + PLOT_H + 36}" font-size="12" text-anchor="middle">${esc(p.xLabel)}</text>`);
  const yMid = oy + TOP + PLOT_H / 2;
  out.push(`<text x="${ox + 16}" y="${yMid}" font-size="12" text-anchor="middle" transform="rotate(-90 ${ox + 16} ${yMid})">${esc(p.yLabel)}</text>`);
  p.lines.forEach((l, i) => {
    const ok = l.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
    const dash = l.dashed ? ' stroke-dasharray="6 4"' : '';
    const r = ok.length > 30 ? 1.8 : 3.5;
    if (ok.length > 1) {
      const d = ok.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
      out.push(`<polyline points="${d}" fill="none" stroke="${l.color}" stroke-width="2"${dash}/>`);
    }
    for (const [x, y] of ok) out.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="${r}" fill="${l.color}"/>`);
    const ly = oy + TOP + 8 + i * 20;
    const lx = ox + LEFT + PLOT_W + 20;
    out.push(`<line x1="${lx}" x2="${lx + 26}" y1="${ly}" y2="${ly}" stroke="${l.color}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${lx + 32}" y="${ly + 4}" font-size="11">${esc(l.label)}</text>`);
  });
  return out.join('\n');
}

/** A figure: a title, a subtitle (machine and date) and the panels one above the other. */
export function figureSvg(title: string, subtitle: string, panels: Panel[]): string {
  const w = PANEL_W;
  const h = HEADER + panels.length * PANEL_H;
  const body = panels.map((p, i) => panelSvg(p, 0, HEADER + i * PANEL_H));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="DejaVu Sans, sans-serif">`,
    `<rect width="${w}" height="${h}" fill="#fff"/>`,
    `<text x="16" y="24" font-size="18" font-weight="bold">${esc(title)}</text>`,
    `<text x="16" y="42" font-size="12" fill="#555">${esc(subtitle)}</text>`,
    ...body,
    '</svg>',
  ].join('\n');
}

/** The SVG as a PNG at twice its size (sharp on high-density screens, still small). */
export function pngOf(svg: string): Buffer {
  const r = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' }, fitTo: { mode: 'zoom', value: 2 } });
  return r.render().asPng();
}
