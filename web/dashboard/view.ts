/** The page around the chart: the key form, the pickers, the DQS badges, the banner, the status line. */
import { keyHint } from '../shared/api-key';
import type { ApiError } from '../shared/graphql';
import type { LiveStatus } from './live';
import type { IngestStatus, MarketInfo, QualityRecord } from './queries';
import { TIMEFRAMES, type Bar, type Timeframe } from './series';

const el = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export const marketId = (m: { exchange: string; symbol: string }) => `${m.exchange}/${m.symbol}`;

export function onKey(submit: (key: string) => void): void {
  el<HTMLFormElement>('key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const key = el<HTMLInputElement>('key-input').value.trim();
    if (key) submit(key);
  });
  el('key-change').addEventListener('click', () => showKeyForm(null));
}

/** The form (no key yet, or a refused one) or the key's hint. */
export function showKeyForm(key: string | null): void {
  el('key-form').hidden = key !== null;
  el('key-info').hidden = key === null;
  if (key) el('key-hint').textContent = keyHint(key);
  else el<HTMLInputElement>('key-input').focus();
}

/** A refusal as the service words it, with the upgrade link or the wait it names. */
export function showError(e: ApiError | null): void {
  const banner = el('banner');
  banner.hidden = e === null;
  if (!e) return;
  banner.dataset.code = e.code ?? '';
  const wait = e.retryAfterSecs !== undefined ? ` Retry in ${e.retryAfterSecs} s.` : '';
  el('banner-text').textContent = `${e.message}.${wait}`.replace(/\.\./, '.');
  el('banner-code').textContent = [e.code, e.requestId && `request ${e.requestId}`].filter(Boolean).join(' · ');
  const link = el<HTMLAnchorElement>('banner-link');
  link.hidden = !e.upgradeUrl;
  if (e.upgradeUrl) link.href = e.upgradeUrl;
}

export function setMarkets(markets: MarketInfo[], selected: MarketInfo, pick: (m: MarketInfo) => void): void {
  const select = el<HTMLSelectElement>('market');
  const venues = [...new Set(markets.map((m) => m.exchange))];
  select.replaceChildren(
    ...venues.map((v) => {
      const group = document.createElement('optgroup');
      group.label = v;
      for (const m of markets.filter((x) => x.exchange === v)) group.append(new Option(`${m.symbol} · ${v}`, marketId(m), false, m === selected));
      return group;
    }),
  );
  select.onchange = () => {
    const m = markets.find((x) => marketId(x) === select.value);
    if (m) pick(m);
  };
}

const BAND_CLASS: Record<string, string> = {
  'production-ready': 'good',
  'minor issues': 'fair',
  'data quality concerns': 'poor',
  'significant issues': 'bad',
};

/** One button per timeframe, each with its DQS badge; timeframes outside the plan are marked. */
export function setTimeframes(allowed: string[], selected: Timeframe, records: QualityRecord[], pick: (tf: Timeframe) => void): void {
  const box = el('timeframes');
  box.replaceChildren(
    ...TIMEFRAMES.map((tf) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'tf';
      b.dataset.timeframe = tf;
      b.setAttribute('aria-pressed', String(tf === selected));
      const name = document.createElement('span');
      name.textContent = tf;
      b.append(name);
      const q = records.find((r) => r.timeframe === tf);
      if (q) {
        const badge = document.createElement('span');
        badge.className = `dqs ${BAND_CLASS[q.band] ?? 'fair'}`;
        badge.dataset.dqs = q.dqs;
        badge.textContent = q.dqs;
        const gaps = q.missingIntervals.length;
        b.title = `Data Quality Score ${q.dqs}: ${q.band}${gaps ? `; ${gaps} missing interval${gaps > 1 ? 's' : ''} in the last 7 days (shaded on the chart)` : ''}`;
        b.append(badge);
      }
      if (!allowed.includes(tf)) {
        b.classList.add('locked');
        b.title = `${tf} is not on your plan`;
      }
      b.onclick = () => pick(tf);
      return b;
    }),
  );
}

const STATUS_TEXT: Record<LiveStatus, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  unauthorized: 'refused',
  off: 'not live',
};

export function setLive(s: LiveStatus, note?: string): void {
  const e = el('live');
  e.dataset.status = s;
  e.textContent = STATUS_TEXT[s];
  e.title = note ?? (s === 'live' ? 'Candles, funding and quality arrive as they close (GraphQL subscriptions)' : '');
}

/** The ingest status (null: nothing ingests this market, nothing shown); the lag ticks locally between polls. */
export function setIngest(s: IngestStatus | null, asOf: number): void {
  const e = el('ingest');
  e.hidden = s === null;
  if (!s) return;
  const lag = s.lag === null ? null : s.lag + (Date.now() - asOf) / 1000;
  e.dataset.connected = String(s.connected);
  e.textContent = `ingest ${s.connected ? 'connected' : 'disconnected'}${lag === null ? '' : ` · lag ${lag < 120 ? `${lag.toFixed(0)} s` : `${(lag / 60).toFixed(0)} min`}`}`;
  e.title = s.lastClosed ? `newest stored 1m candle opened ${s.lastClosed}` : 'no candle stored yet';
}

const fmt = (v: number) => (Math.abs(v) >= 1000 ? v.toFixed(2) : Math.abs(v) >= 1 ? v.toFixed(4) : v.toPrecision(4));

/** Symbol, timeframe and the OHLCV of the hovered bar (or the last one). */
export function setLegend(m: MarketInfo, tf: Timeframe, bar: Bar | undefined, last: Bar | undefined): void {
  const legend = el('legend');
  legend.dataset.lastTime = last ? new Date(last.time * 1000).toISOString() : '';
  const b = bar ?? last;
  el('legend-market').textContent = `${m.symbol} · ${m.exchange} · ${tf}`;
  el('legend-ohlc').textContent = b
    ? `${new Date(b.time * 1000).toISOString().slice(0, 16).replace('T', ' ')}  O ${fmt(b.open)}  H ${fmt(b.high)}  L ${fmt(b.low)}  C ${fmt(b.close)}  V ${fmt(b.volume)}`
    : '';
}

export function setMessage(text: string | null): void {
  const e = el('message');
  e.hidden = text === null;
  e.textContent = text ?? '';
}
