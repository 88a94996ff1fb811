/**
 * The properties every fuzzed answer must have: never a 5xx, an X-Request-Id, the error
 * envelope (REST) or coded errors (GraphQL), and nothing internal in any body.
 */
import querystring from 'node:querystring';
import { ERROR_CODES, type ErrorCode } from '../../../src/domain/errors';
import { HTTP_STATUS } from '../../../src/transport/http-status';
import type { Json } from '../json';
import type { Got, Sent } from './wire';

// ---- the checks ----------------------------------------------------------------------------

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ENVELOPE_KEYS = new Set(['error', 'message', 'request_id', 'retry_after_secs', 'upgrade_url']);
export const INTERNAL_CODES = new Set(['DATABASE_ERROR', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE']);
export const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const LEAKS: Array<[string, RegExp]> = [
  ['a stack frame', / {4}at |\bat [\w$.<>[\] ]+ \(\S+:\d+:\d+\)/],
  // A file name and a line (`server.ts:12`): a bare `.ts:` is often the caller's own input echoed (`{.ts:0}`).
  ['a TypeScript source position', /\w\.ts:\d+/],
  ['a JavaScript source position', /\.[cm]?js:\d+/],
  ['node_modules', /node_modules/],
  ['the server directory', new RegExp(escapeRe(process.cwd()))],
  ['SQL', /\bSELECT\b|\bINSERT INTO\b|\bDELETE FROM\b|\bUPDATE \w+ SET\b/],
  ['a PostgreSQL error', /syntax error at|relation "|invalid input syntax|violates [\w ]*constraint|duplicate key value|column "|SQLSTATE/i],
  ['Prisma', /prisma/i],
  ['a JavaScript error name', /\b(?:TypeError|ReferenceError|RangeError|URIError|SyntaxError)\b/],
];

export function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      strings(x, out);
    }
  }
  return out;
}

export function sentText(s: Sent): string {
  const parts = [querystring.unescape(s.path.replace(/\+/g, ' ')), s.path, s.plainBody ?? (typeof s.body === 'string' ? s.body : '')];
  for (const v of Object.values(s.headers ?? {})) parts.push(...(Array.isArray(v) ? v : [v]));
  return parts.join('\n');
}

export function summary(s: Sent, g: Got): string {
  const cut = (x: string, n: number) => (x.length > n ? `${x.slice(0, n)}… (${x.length} chars)` : x);
  const body = s.plainBody ?? (typeof s.body === 'string' ? s.body : s.body ? `<${s.body.length} bytes>` : '');
  return (
    `${s.method} ${cut(s.path, 400)}\n  headers ${cut(JSON.stringify(s.headers ?? {}), 400)}\n  body ${cut(JSON.stringify(body), 400)}\n` +
    `-> ${g.status} ${g.headers['content-type'] ?? ''} ${cut(g.text, 600)}`
  );
}

export function fail(what: string, s: Sent, g: Got): never {
  throw new Error(`${what}\n${summary(s, g)}`);
}

export function parseJson(s: Sent, g: Got): unknown {
  if (!/^application\/(?:[\w.+-]+\+)?json\b/.test(String(g.headers['content-type']))) fail('the body is not JSON', s, g);
  try {
    return JSON.parse(g.text);
  } catch {
    return fail('the body does not parse as JSON', s, g);
  }
}

/** A page or asset for browsers (the docs, the GraphQL Sandbox): fixed files, not answers. */
export const isStatic = (g: Got) => g.status < 400 && /^(?:text\/html|text\/css|(?:text|application)\/javascript|image\/)/.test(String(g.headers['content-type']));

/**
 * Bytes of the request line and headers. node:http refuses a head over 16 KB (its
 * --max-http-header-size) itself, with 431 and no body, before the application sees it.
 */
export function headBytes(s: Sent): number {
  let n = s.method.length + s.path.length + 12;
  for (const [k, v] of Object.entries(s.headers ?? {})) for (const x of Array.isArray(v) ? v : [v]) n += k.length + Buffer.byteLength(x, 'latin1') + 4;
  return n + 120; // Host, Connection, Content-Length
}
export const NODE_HEAD_LIMIT = 16 * 1024;

/** Never a 5xx, an X-Request-Id, and nothing internal in the body. */
export function checkCommon(s: Sent, g: Got): void {
  if (g.status >= 500) fail(`HTTP ${g.status}`, s, g);
  if (g.status === 431 && headBytes(s) > NODE_HEAD_LIMIT - 500) return; // node:http's own refusal
  if (!UUID_RE.test(String(g.headers['x-request-id']))) fail('no X-Request-Id', s, g);
  if (isStatic(g)) return;
  let texts = g.text;
  try {
    texts += '\n' + strings(JSON.parse(g.text)).join('\n');
  } catch {
    // not JSON: the raw text is checked
  }
  const sent = sentText(s);
  for (const [what, re] of LEAKS) {
    if (re.test(texts) && !new RegExp(re.source, 'i').test(sent)) fail(`the body leaks ${what}`, s, g);
  }
}

export function checkRest(s: Sent, g: Got): void {
  checkCommon(s, g);
  if (s.method === 'HEAD' || s.method === 'OPTIONS' || g.status === 431) return;
  if (g.status < 400) {
    // CSV (format=csv), the docs page and its assets, Prometheus text at /metrics.
    if (!/json/.test(String(g.headers['content-type']))) return;
    const body = parseJson(s, g);
    if (!body || typeof body !== 'object' || Array.isArray(body)) fail('a success body that is not a JSON object', s, g);
    return;
  }
  const body = parseJson(s, g) as Json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) fail('an error body that is not a JSON object', s, g);
  const extra = Object.keys(body).filter((k) => !ENVELOPE_KEYS.has(k));
  if (extra.length) fail(`the envelope has extra properties ${extra.join(', ')}`, s, g);
  if (typeof body.error !== 'string' || !(ERROR_CODES as readonly string[]).includes(body.error)) fail('the envelope has no known error code', s, g);
  if (typeof body.message !== 'string' || body.message === '') fail('the envelope has no message', s, g);
  if (body.request_id !== g.headers['x-request-id']) fail('request_id differs from X-Request-Id', s, g);
  if (HTTP_STATUS[body.error as ErrorCode] !== g.status) fail(`${body.error} with HTTP ${g.status}`, s, g);
  if (g.status === 429 && (!Number.isInteger(body.retry_after_secs) || String(body.retry_after_secs) !== g.headers['retry-after'])) {
    fail('a 429 without retry_after_secs equal to Retry-After', s, g);
  }
  if (body.error === 'TIER_LIMIT_EXCEEDED' && typeof body.upgrade_url !== 'string') fail('a tier refusal without upgrade_url', s, g);
}

export function checkGraphql(s: Sent, g: Got): void {
  checkCommon(s, g);
  if (s.method === 'HEAD' || s.method === 'OPTIONS' || g.status === 431) return;
  if (/^text\/html/.test(String(g.headers['content-type']))) {
    // The Sandbox landing page, for a browser's GET.
    if (s.method !== 'GET' || g.status !== 200) fail('HTML that is not the landing page', s, g);
    return;
  }
  const body = parseJson(s, g) as Json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) fail('a GraphQL response that is not a JSON object', s, g);
  if ('errors' in body) {
    if (!Array.isArray(body.errors) || body.errors.length === 0) fail('errors that are not a non-empty list', s, g);
    for (const e of body.errors as Json[]) {
      if (typeof e?.message !== 'string') fail('an error without a message', s, g);
      const code = e.extensions?.code;
      if (typeof code !== 'string' || code === '') fail('an error without extensions.code', s, g);
      if (INTERNAL_CODES.has(code)) fail(`an internal error (${code})`, s, g);
      if (e.extensions?.request_id !== g.headers['x-request-id']) fail('an error whose request_id differs from X-Request-Id', s, g);
    }
  } else if (!('data' in body)) {
    fail('a GraphQL response with neither data nor errors', s, g);
  }
}

export const isGraphqlPath = (path: string) => /^\/graphql(?:[/?]|$)/i.test(path);

/** The checks of the transport the request went to. */
export function check(s: Sent, g: Got): void {
  if (isGraphqlPath(s.path)) checkGraphql(s, g);
  else checkRest(s, g);
}
