/**
 * One market at one timeframe on TradingView's lightweight-charts: candles, volume, the
 * Bollinger bands and the missing candles (shaded, with a marker) in the main pane; under it,
 * where the data has it, open interest (perpetual) or the taker-buy share (spot); RSI and MACD
 * panes; on the perpetual venue a funding pane (z-score and premium). Panes share the time
 * axis. HTML labels sit over each pane (data-pane: main, oi, taker, rsi, macd, funding).
 */
import {
  CandlestickSeries,
  ColorType,
  createChart,
  createSeriesMarkers,
  CrosshairMode,
  HistogramSeries,
  LineSeries,
  LineStyle,
  LineType,
  type IChartApi,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  type LogicalRange,
  type SeriesType,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { durationText, gapSlots, gapStarts, mergeByTime, type Bar, type Feature, type FundingPoints, type Interval, type Point, type Timeframe } from './series';

const C = {
  bg: '#0e1117',
  text: '#aab4c0',
  grid: '#1b212c',
  up: '#26a69a',
  down: '#ef5350',
  band: '#5c8fd6',
  mid: '#d9b44a',
  rsi: '#b39ddb',
  macd: '#4fc3f7',
  signal: '#ffb74d',
  zscore: '#4dd0e1',
  premium: '#f48fb1',
  context: '#aed581',
  gap: 'rgba(255, 167, 38, 0.22)',
  gapMark: '#ffa726',
};

export type PaneName = 'main' | 'oi' | 'taker' | 'rsi' | 'macd' | 'funding';

export interface ChartData {
  bars: Bar[];
  features: Record<Feature, Point[]>;
  funding?: FundingPoints;
  /** The pane under the price: open interest, or the taker-buy share in percent. */
  context?: Point[];
}

const LABELS: Record<PaneName, string> = {
  main: '',
  oi: 'Open interest (base units)',
  taker: 'Taker-buy share of volume %',
  rsi: 'RSI 14',
  macd: 'MACD 12 26 9 · signal · histogram',
  funding: 'Funding z-score (30d) · premium % (left axis)',
};

const line = (points: Point[]) => points.map((p) => (p.value === null ? { time: p.time } : { time: p.time, value: p.value }));

export class MarketChart {
  private readonly chart: IChartApi;
  private readonly candles: ISeriesApi<'Candlestick'>;
  private readonly volume: ISeriesApi<'Histogram'>;
  private readonly gaps: ISeriesApi<'Histogram'>;
  private readonly gapMarkers: ISeriesMarkersPluginApi<Time>;
  private readonly lines: Partial<Record<Feature | 'zscore' | 'premium' | 'context', ISeriesApi<SeriesType>>> = {};
  private panes: PaneName[];
  private readonly labels = new Map<PaneName, HTMLElement>();
  private readonly resize: ResizeObserver;
  private data: ChartData = { bars: [], features: {} as Record<Feature, Point[]> };
  private intervals: Interval[] = [];

  constructor(
    private readonly host: HTMLElement,
    readonly timeframe: Timeframe,
    withFunding: boolean,
    private readonly onHover: (bar: Bar | undefined) => void,
  ) {
    host.replaceChildren();
    this.panes = withFunding ? ['main', 'rsi', 'macd', 'funding'] : ['main', 'rsi', 'macd'];
    host.dataset.panes = this.panes.join(' ');
    const intraday = timeframe !== '1d';
    this.chart = createChart(host, {
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: C.bg }, textColor: C.text, fontSize: 11, panes: { separatorColor: '#2a3240', enableResize: true } },
      grid: { vertLines: { color: C.grid }, horzLines: { color: C.grid } },
      crosshair: { mode: CrosshairMode.Normal },
      rightPriceScale: { borderColor: '#2a3240' },
      leftPriceScale: { visible: withFunding, borderColor: '#2a3240' },
      timeScale: { borderColor: '#2a3240', timeVisible: intraday, secondsVisible: false, rightOffset: 4 },
      localization: { timeFormatter: (t: number) => new Date(t * 1000).toISOString().slice(0, intraday ? 16 : 10).replace('T', ' ') },
    });
    const c = this.chart;

    this.gaps = c.addSeries(HistogramSeries, { priceScaleId: 'gaps', color: C.gap, priceLineVisible: false, lastValueVisible: false, base: 0 }, 0);
    c.priceScale('gaps', 0).applyOptions({ scaleMargins: { top: 0, bottom: 0 }, visible: false });
    this.gapMarkers = createSeriesMarkers(this.gaps, []);
    this.volume = c.addSeries(HistogramSeries, { priceScaleId: 'volume', priceFormat: { type: 'volume' }, priceLineVisible: false, lastValueVisible: false }, 0);
    c.priceScale('volume', 0).applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    this.candles = c.addSeries(CandlestickSeries, { upColor: C.up, downColor: C.down, borderVisible: false, wickUpColor: C.up, wickDownColor: C.down }, 0);
    const quiet = { priceLineVisible: false, lastValueVisible: false, crosshairMarkerVisible: false, lineWidth: 1 as const };
    this.lines.bb_upper = c.addSeries(LineSeries, { ...quiet, color: C.band }, 0);
    this.lines.bb_middle = c.addSeries(LineSeries, { ...quiet, color: C.mid, lineStyle: LineStyle.Dashed }, 0);
    this.lines.bb_lower = c.addSeries(LineSeries, { ...quiet, color: C.band }, 0);

    const rsi = c.addSeries(LineSeries, { color: C.rsi, lineWidth: 1, priceLineVisible: false, autoscaleInfoProvider: () => ({ priceRange: { minValue: 0, maxValue: 100 } }) }, 1);
    rsi.createPriceLine({ price: 70, color: '#55606f', lineStyle: LineStyle.Dotted, lineWidth: 1, axisLabelVisible: false, title: '' });
    rsi.createPriceLine({ price: 30, color: '#55606f', lineStyle: LineStyle.Dotted, lineWidth: 1, axisLabelVisible: false, title: '' });
    this.lines.rsi_14 = rsi;
    c.priceScale('right', 1).applyOptions({ scaleMargins: { top: 0.08, bottom: 0.08 } });

    this.lines.macd_histogram = c.addSeries(HistogramSeries, { priceLineVisible: false, lastValueVisible: false }, 2);
    this.lines.macd = c.addSeries(LineSeries, { ...quiet, color: C.macd }, 2);
    this.lines.macd_signal = c.addSeries(LineSeries, { ...quiet, color: C.signal }, 2);

    if (withFunding) {
      this.lines.zscore = c.addSeries(LineSeries, { color: C.zscore, lineWidth: 1, lineType: LineType.WithSteps, priceLineVisible: false }, 3);
      this.lines.premium = c.addSeries(
        LineSeries,
        { color: C.premium, lineWidth: 1, lineType: LineType.WithSteps, priceScaleId: 'left', priceLineVisible: false, priceFormat: { type: 'custom', formatter: (v: number) => `${v.toFixed(3)}%`, minMove: 0.001 } },
        3,
      );
    }
    this.stretch();

    c.subscribeCrosshairMove((p) => {
      const bar = p.time === undefined ? undefined : (p.seriesData.get(this.candles) as Bar | undefined);
      this.onHover(bar && 'open' in bar ? { ...bar, volume: this.volumeAt(bar.time) } : undefined);
    });
    this.makeLabels();
    this.resize = new ResizeObserver(() => requestAnimationFrame(() => this.placeLabels()));
    this.resize.observe(host);
  }

  /** Add the pane under the price (before the first render that has its points). */
  showContext(kind: 'oi' | 'taker'): void {
    if (this.lines.context) return;
    const index = this.panes.length;
    const format = kind === 'taker' ? { type: 'custom' as const, formatter: (v: number) => `${v.toFixed(1)}%`, minMove: 0.1 } : { type: 'volume' as const };
    this.lines.context = this.chart.addSeries(LineSeries, { color: C.context, lineWidth: 1, priceLineVisible: false, priceFormat: format }, index);
    this.chart.panes()[index].moveTo(1);
    this.panes = [this.panes[0], kind, ...this.panes.slice(1)];
    this.host.dataset.panes = this.panes.join(' ');
    this.stretch();
    this.makeLabel(kind);
  }

  /** Replace everything shown (a first window, or older history merged in by the caller). */
  render(data: ChartData): void {
    this.data = data;
    this.host.dataset.firstTime = data.bars.length ? new Date(data.bars[0].time * 1000).toISOString() : '';
    this.candles.setData(data.bars);
    this.volume.setData(data.bars.map((b) => ({ time: b.time, value: b.volume, color: b.close >= b.open ? 'rgba(38,166,154,0.45)' : 'rgba(239,83,80,0.45)' })));
    for (const f of ['bb_upper', 'bb_middle', 'bb_lower', 'rsi_14', 'macd', 'macd_signal'] as const) this.lines[f]?.setData(line(data.features[f] ?? []));
    this.lines.macd_histogram?.setData(this.macdBars(data.features.macd_histogram ?? []));
    if (data.funding) {
      this.lines.zscore?.setData(line(data.funding.zscore));
      this.lines.premium?.setData(line(data.funding.premium));
      const last = data.funding.zscore[data.funding.zscore.length - 1];
      this.host.dataset.lastFunding = last ? new Date(last.time * 1000).toISOString() : '';
    }
    if (data.context) this.lines.context?.setData(line(data.context));
    this.drawGaps();
    requestAnimationFrame(() => this.placeLabels());
  }

  /** Points of the pane under the price (a live period): merged, then redrawn. */
  upsertContext(points: Point[]): void {
    this.render({ ...this.data, context: mergeByTime(this.data.context ?? [], points) });
  }

  /** A live candle: appended (or, when older than the last one, merged in). */
  upsertBar(bar: Bar): void {
    const last = this.data.bars[this.data.bars.length - 1];
    this.data.bars = mergeByTime(this.data.bars, [bar]);
    if (!last || bar.time >= last.time) {
      this.candles.update(bar);
      this.volume.update({ time: bar.time, value: bar.volume, color: bar.close >= bar.open ? 'rgba(38,166,154,0.45)' : 'rgba(239,83,80,0.45)' });
    } else {
      this.render(this.data);
    }
  }

  /** Feature values of recent bars (after a live candle): merged, then redrawn. */
  upsertFeatures(features: Record<Feature, Point[]>): void {
    const merged = { ...this.data.features };
    for (const f of Object.keys(features) as Feature[]) merged[f] = mergeByTime(merged[f] ?? [], features[f]);
    this.render({ ...this.data, features: merged });
  }

  upsertFunding(funding: FundingPoints): void {
    if (!this.data.funding) return;
    const f = this.data.funding;
    this.render({ ...this.data, funding: { zscore: mergeByTime(f.zscore, funding.zscore), premium: mergeByTime(f.premium, funding.premium) } });
  }

  /** The missing intervals of the shown timeframe (from its quality record). */
  setGaps(intervals: Interval[]): void {
    this.intervals = intervals;
    this.drawGaps();
  }

  get current(): ChartData {
    return this.data;
  }

  lastBar(): Bar | undefined {
    return this.data.bars[this.data.bars.length - 1];
  }

  onScroll(fn: (range: LogicalRange | null) => void): void {
    this.chart.timeScale().subscribeVisibleLogicalRangeChange(fn);
  }

  remove(): void {
    this.resize.disconnect();
    this.chart.remove();
  }

  private volumeAt(time: Time): number {
    const b = this.data.bars.find((x) => x.time === time);
    return b ? b.volume : 0;
  }

  private macdBars(points: Point[]) {
    return points.map((p) => (p.value === null ? { time: p.time } : { time: p.time, value: p.value, color: p.value >= 0 ? 'rgba(38,166,154,0.6)' : 'rgba(239,83,80,0.6)' }));
  }

  private drawGaps(): void {
    const bars = this.data.bars;
    if (bars.length === 0) {
      this.gaps.setData([]);
      this.gapMarkers.setMarkers([]);
      return;
    }
    const from = bars[0].time;
    const to = bars[bars.length - 1].time;
    this.gaps.setData(gapSlots(this.intervals, this.timeframe, from, to).map((time) => ({ time, value: 1 })));
    this.gapMarkers.setMarkers(
      gapStarts(this.intervals, from, to).map((g) => ({ time: g.time as UTCTimestamp, position: 'aboveBar' as const, shape: 'arrowDown' as const, color: C.gapMark, text: `gap ${durationText(g.ms)}` })),
    );
    this.host.dataset.gaps = String(gapStarts(this.intervals, from, to).length);
  }

  private makeLabels(): void {
    for (const p of this.panes) if (p !== 'main') this.makeLabel(p);
  }

  private makeLabel(p: PaneName): void {
    const el = document.createElement('div');
    el.className = `pane-label pane-${p}`;
    el.dataset.pane = p;
    el.textContent = LABELS[p];
    this.host.appendChild(el);
    this.labels.set(p, el);
  }

  private stretch(): void {
    const factor: Record<PaneName, number> = { main: 3, oi: 1, taker: 1, rsi: 1, macd: 1, funding: 1 };
    this.chart.panes().forEach((p, i) => p.setStretchFactor(factor[this.panes[i]]));
  }

  private placeLabels(): void {
    let top = 0;
    const left = this.chart.priceScale('left').width();
    this.chart.panes().forEach((pane, i) => {
      const el = this.labels.get(this.panes[i]);
      if (el) {
        el.style.top = `${top + 4}px`;
        el.style.left = `${left + 8}px`;
      }
      top += pane.getHeight() + 1;
    });
  }
}
