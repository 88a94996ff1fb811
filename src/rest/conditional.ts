/**
 * Conditional GET for the REST data routes (docs/DECISIONS.md, "Caching"): a strong ETag over what
 * the response contains, `If-None-Match` answered with 304, and a Cache-Control that lets a client
 * keep closed history. The tag hashes the format, the normalized parameters (an omitted `end`
 * counts as open, not as the request's clock), the rows as sent and the next page's start, before
 * any byte is written (and remembered at the page's write watermark, page-tags.service.ts). The
 * access path runs first, so a 304 comes after 401, 429, 400 and 403 and carries quota headers.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { TIMEFRAME_MS, bucketStart, type FeatureTimeframe } from '../domain/timeframe';
import type { PageTags, RememberedTag } from '../services/reads/page-tags.service';
import type { Marked, ReadPlan, WatermarkScope } from '../services/reads/read-plan';
import type { Format } from './format';

/** A page whose last period closed at least this long ago is history a client may keep. */
export const SETTLED_MS = 5 * 60_000;
/** How long it may keep it without asking again (s). */
export const MAX_AGE_S = 300;

/** What decides a page's Cache-Control. */
export interface PageSpan {
  /** The `end` the client gave (ms), or null: the page runs up to now. */
  endMs: number | null;
  /** The timeframe of its rows (the period the last row covers). */
  timeframe: FeatureTimeframe;
  nowMs: number;
}

/** The tag of a representation made of `parts` (the format, the parameters, the body...). */
export function entityTag(parts: ReadonlyArray<string | Uint8Array>): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}

/**
 * The parameters as they enter the tag: the normalized request, with the `end` the client gave
 * or null (an open end is filled in with the clock, which would change the tag every time).
 */
function tagParameters(format: Format, request: object, endGiven: boolean): string {
  const { end, ...rest } = request as { end?: unknown };
  return JSON.stringify({ format, ...rest, end: endGiven ? end : null });
}

/** Whether the page's last period closed at least SETTLED_MS ago. */
function settled(span: PageSpan): boolean {
  if (span.endMs === null) return false;
  // A funding row covers its hour.
  const tf = span.timeframe === 'funding' ? '1h' : span.timeframe;
  return bucketStart(span.endMs, tf) + TIMEFRAME_MS[tf] <= span.nowMs - SETTLED_MS;
}

/** Whether an If-None-Match value names `tag` (weak comparison, as RFC 9110 asks of it). */
function named(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === tag);
}

/**
 * Set the caching headers of a data response (ETag, Cache-Control, Vary); when the client
 * already holds this representation, answer 304 without a body and return true.
 */
export function answeredNotModified(req: Request, res: Response, tag: string, span: PageSpan | null): boolean {
  res.setHeader('ETag', tag);
  res.setHeader('Cache-Control', span !== null && settled(span) ? `private, max-age=${MAX_AGE_S}` : 'no-cache');
  res.vary('X-API-Key');
  res.vary('Accept-Encoding');
  if (!named(req.header('if-none-match'), tag)) return false;
  res.status(304).end();
  return true;
}

/** What a data page's ETag and caching headers are made of: its tag's parameters and its span. */
export interface TagInputs {
  params: string;
  span: PageSpan | null;
  /** Keep the tag sent (set by `readConditional` when the page's watermark was read with it). */
  remember?: (sent: RememberedTag) => void;
  /** The tag already remembered for this page at the watermark it was read at (set by `readConditional`). */
  known?: RememberedTag;
}

/**
 * The tag of the page about to be sent: the one remembered for it when its watermark proved it
 * unchanged, else `hash()` of its bytes, remembered under its watermark.
 */
export function pageTag(inputs: TagInputs, nextStart: string | null, hash: () => string): string {
  if (inputs.known !== undefined) return inputs.known.tag;
  const tag = hash();
  inputs.remember?.({ tag, nextStart });
  return tag;
}

/**
 * Read a data page through its write watermark: when the client holds the tag remembered for it,
 * answer 304 (with the headers a full answer's 304 has) and return null; else the page, with
 * `inputs.remember` or `inputs.known` set.
 */
export async function readConditional<P>(
  req: Request,
  res: Response,
  tags: PageTags,
  inputs: TagInputs,
  scope: WatermarkScope | null,
  read: () => Promise<Marked<P>>,
): Promise<P | null> {
  const ifNoneMatch = req.header('if-none-match');
  // Keyed by the route too: two routes' requests may normalize alike (ohlcv and derivatives) and share a watermark.
  const r = await tags.read(`${req.baseUrl}${req.path}\0${inputs.params}`, scope, ifNoneMatch === undefined ? null : (tag) => named(ifNoneMatch, tag), read);
  if ('page' in r) {
    inputs.remember = r.remember;
    inputs.known = r.known;
    return r.page;
  }
  if (r.notModified.nextStart !== null) res.setHeader('X-Next-Start', r.notModified.nextStart);
  answeredNotModified(req, res, r.notModified.tag, inputs.span);
  return null;
}

/** The tag inputs of a read plan in `format`: its normalized request, and the span of its rows. */
export function tagInputs(req: Request, format: Format, plan: Pick<ReadPlan<{ end: number }, unknown>, 'request' | 'timeframe' | 'now'>): TagInputs {
  const endGiven = req.query.end !== undefined;
  return { params: tagParameters(format, plan.request, endGiven), span: { endMs: endGiven ? plan.request.end : null, timeframe: plan.timeframe, nowMs: plan.now } };
}

/**
 * Send a JSON body (its bytes), or 304 when the client holds it already; returns its tag. The tag
 * hashes the bytes that are sent, or is the one remembered for them (`pageTag`).
 */
export function sendJsonPage(req: Request, res: Response, inputs: TagInputs, body: Uint8Array): string {
  const tag = pageTag(inputs, null, () => entityTag([inputs.params, body]));
  if (answeredNotModified(req, res, tag, inputs.span)) return tag;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  return tag;
}
