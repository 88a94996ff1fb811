/**
 * Turning a venue's candle, funding and context fields into validated rows, the same checks for
 * every venue: a candle time within ±5 s of its boundary is aligned to it (farther off:
 * rejected), a funding time belongs to hour floor(t + 5 s), decimals must be finite numbers
 * written as text (kept exact, never through a float), a candle must pass the CSV import's
 * checks (and its trade flow: volumes >= 0, whole trades), a context positive prices. A rejected
 * row is reported to the observer and never written.
 */
import { z } from 'zod';
import { checkTradeFlow, parseCandleRow, RowError, type CandleInput, type FundingRateInput } from '../domain/csv-rows';
import { checkContext, type DerivativesInput, type PerpContext } from '../domain/derivatives';
import { compareDecimal, parseDecimal, shiftDecimal } from '../domain/decimal';
import { alignVenueTime, fundingHourOf } from '../domain/ingest-settings';
import { TIMEFRAME_MS, type CandleTimeframe } from '../domain/timeframe';
import type { CandlePage, VenueObserver } from './venue';

/** A decimal as the venue writes it: text. */
export const decimalText = z.string().refine((v) => parseDecimal(v) !== null, 'not a finite decimal');
/** Text, or a JSON number where a venue's docs and its traffic disagree (kept as its shortest text). */
export const decimalTextOrNumber = z.union([decimalText, z.number().finite().transform((n) => String(n))]);
export const epochMs = z.number().int().nonnegative();

/**
 * Why a row was dropped (the metric's `kind`): schema, not the documented shape; time, off its
 * boundary; values, impossible prices; range, not what was asked; duplicate, a second funding
 * settlement in one hour.
 */
export type RejectKind = 'schema' | 'time' | 'values' | 'range' | 'duplicate';

/** The first issue of a failed zod parse, as one short line. */
export function schemaReason(err: z.ZodError): string {
  const i = err.issues[0];
  return `${i.path.join('.') || 'row'}: ${i.message}`;
}

/**
 * The rows of one response or one socket: checked rows are returned, rejected ones counted and
 * their slots noted (a rejected slot is asked for again later, never recorded as a venue gap).
 */
/** A decimal from the venue times 10^places, exact; the text as it is when it is not a decimal (then rejected as such). */
function shifted(text: string, places: number): string {
  const d = parseDecimal(text);
  return d === null ? text : shiftDecimal(d, places);
}

function scaledCandle(c: CandleInput, scale: number): CandleInput {
  const k = Math.round(Math.log10(scale));
  const price = (v: string) => shifted(v, -k);
  return {
    ...c,
    open: price(c.open),
    high: price(c.high),
    low: price(c.low),
    close: price(c.close),
    volume: shifted(c.volume, k),
    ...(c.takerBuyVolume === undefined ? {} : { takerBuyVolume: shifted(c.takerBuyVolume, k) }),
  };
}

function scaledContext(c: PerpContext, scale: number): PerpContext {
  const k = Math.round(Math.log10(scale));
  return {
    ...c,
    openInterest: shifted(c.openInterest, k),
    markPrice: shifted(c.markPrice, -k),
    oraclePrice: shifted(c.oraclePrice, -k),
    midPrice: c.midPrice === null ? null : shifted(c.midPrice, -k),
  };
}

export class RowSink {
  /** Open times of rejected rows; null once a rejected row had no usable time. */
  rejectedTimes: number[] | null = [];

  constructor(
    private readonly venue: string,
    private readonly observer: VenueObserver,
  ) {}

  /** Drop a row; `time` when it can be told. */
  reject(kind: RejectKind, reason: string, time?: unknown): void {
    this.observer.rejected(this.venue, kind, reason);
    if (typeof time !== 'number' || !Number.isFinite(time)) this.rejectedTimes = null;
    else this.rejectedTimes?.push(time);
  }

  /**
   * The candle aligned and checked, with its trade flow when given, or null (rejected); an
   * instrument of `scale` (VenueInstrument) is restated per unit: prices divided, volumes multiplied.
   */
  candle(raw: CandleInput, tf: CandleTimeframe, scale = 1): CandleInput | null {
    const f = scale === 1 ? raw : scaledCandle(raw, scale);
    const time = alignVenueTime(f.time, TIMEFRAME_MS[tf]);
    if (time === null) return this.rejected('time', `open time ${f.time} is more than 5 s off the ${tf} boundary`, f.time);
    try {
      return { ...parseCandleRow([String(time), f.open, f.high, f.low, f.close, f.volume], tf), ...checkTradeFlow(f) };
    } catch (err) {
      if (err instanceof RowError) return this.rejected('values', err.message, f.time);
      throw err;
    }
  }

  /** The funding rate of hour floor(time + 5 s), checked, or null (rejected). */
  funding(time: number, rate: string): FundingRateInput | null {
    const r = parseDecimal(rate);
    return r === null ? this.rejected('values', `rate "${rate}" is not a finite number`, time) : { time: fundingHourOf(time), rate: r };
  }

  /** A context with its decimals canonical and checked (restated per unit at `scale`), or null (rejected). */
  context(raw: PerpContext, scale = 1): PerpContext | null {
    const c = scale === 1 ? raw : scaledContext(raw, scale);
    const exact = (v: string, name: string) => {
      const d = parseDecimal(v);
      if (d === null) throw new RowError(`${name} "${v}" is not a finite number`);
      return d;
    };
    try {
      return checkContext({
        openInterest: exact(c.openInterest, 'openInterest'),
        markPrice: exact(c.markPrice, 'markPx'),
        oraclePrice: exact(c.oraclePrice, 'oraclePx'),
        midPrice: c.midPrice === null ? null : exact(c.midPrice, 'midPx'),
        fundingRate: exact(c.fundingRate, 'funding'),
        premium: c.premium === null ? null : exact(c.premium, 'premium'),
      });
    } catch (err) {
      if (err instanceof RowError) return this.rejected('values', err.message, undefined);
      throw err;
    }
  }

  /**
   * A past minute's context as a venue keeps it (its mark, index and premium klines), checked
   * and restated at `scale`, or null (rejected): open interest, mid and the predicted rate are
   * unknown there.
   */
  pastMinute(time: number, v: { markPrice: string; oraclePrice: string; premium: string | null }, scale = 1): DerivativesInput | null {
    const k = Math.round(Math.log10(scale));
    const price = (x: string) => parseDecimal(shifted(x, -k));
    const [markPrice, oraclePrice] = [price(v.markPrice), price(v.oraclePrice)];
    const premium = v.premium === null ? null : parseDecimal(v.premium);
    if (markPrice === null || oraclePrice === null || (v.premium !== null && premium === null)) return this.rejected('values', 'a price or premium is not a finite number', time);
    if (compareDecimal(markPrice, '0') <= 0 || compareDecimal(oraclePrice, '0') <= 0) return this.rejected('values', 'mark and index prices must be positive', time);
    const unknown = { openInterestOpen: null, openInterestHigh: null, openInterestLow: null, openInterest: null, midPrice: null, predictedFundingRate: null };
    return { time, markPrice, oraclePrice, venuePremium: premium, ...unknown };
  }

  /** Open interest as a venue's history gives it, checked and restated at `scale` (multiplied), or null (rejected). */
  openInterest(time: number, value: string, scale = 1): string | null {
    const oi = parseDecimal(shifted(value, Math.round(Math.log10(scale))));
    if (oi === null || compareDecimal(oi, '0') < 0) return this.rejected('values', `open interest "${value}" is not a non-negative number`, time);
    return oi;
  }

  /**
   * One REST page of candles asked for [startMs, endMs]: `fieldsOf` turns an element of the
   * answer into candle fields (or rejects it and returns null); the checked candles that lie in
   * the asked range and had closed by `closedBy` are the page.
   */
  candlePage(
    json: unknown,
    ask: { what: string; noun: string; tf: CandleTimeframe; startMs: number; endMs: number; closedBy: number; scale?: number },
    fieldsOf: (raw: unknown) => CandleInput | null,
  ): CandlePage {
    const rows: CandleInput[] = [];
    if (!Array.isArray(json)) {
      this.reject('schema', `${ask.what} answer is not an array`);
      return { rows, rejectedTimes: null };
    }
    const p = TIMEFRAME_MS[ask.tf];
    for (const raw of json) {
      const fields = fieldsOf(raw);
      const row = fields && this.candle(fields, ask.tf, ask.scale);
      if (!row) continue;
      if (row.time < ask.startMs || row.time > ask.endMs) this.reject('range', `${ask.noun} ${row.time} outside the asked range`, row.time);
      else if (row.time + p <= ask.closedBy) rows.push(row);
    }
    return { rows, rejectedTimes: this.rejectedTimes };
  }

  /** Parse `raw` with a venue schema, or null (rejected as `schema`). */
  parse<T>(schema: z.ZodType<T>, raw: unknown, timeOf: (raw: unknown) => unknown): T | null {
    const parsed = schema.safeParse(raw);
    return parsed.success ? parsed.data : this.rejected('schema', schemaReason(parsed.error), timeOf(raw));
  }

  private rejected(kind: RejectKind, reason: string, time: unknown): null {
    this.reject(kind, reason, time);
    return null;
  }
}
