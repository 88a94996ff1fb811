/**
 * The readers of single environment values (zod schemas with their defaults and bounds) that
 * config.ts composes into the configuration: booleans, durations, retentions, venue URLs,
 * request weights, the replica URL list, the Redis sentinel list.
 */
import { z } from 'zod';
import { parseDuration } from './domain/time';
import type { CandleTimeframe } from './domain/timeframe';

const BOOLEANS: Record<string, boolean> = { true: true, '1': true, yes: true, false: false, '0': false, no: false };

export function parseBool(text: string): boolean {
  const v = BOOLEANS[text.trim().toLowerCase()];
  if (v === undefined) throw new Error('must be true or false');
  return v;
}

export const bool = (def: boolean) =>
  z
    .string()
    .transform((v) => v.trim().toLowerCase())
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' }))
    .optional()
    .transform((v) => (v === undefined ? def : BOOLEANS[v]));

export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

export const exchangeName = z.string().regex(/^[a-z0-9_.-]{1,32}$/, 'must be 1-32 lowercase letters, digits, _ . -');

/** A duration: plain seconds ("300") or with a unit ("500ms", "30s", "5m", "1h", "30d"). */
export const duration = (def: string) =>
  z
    .string()
    .default(def)
    .transform((v, ctx) => {
      const ms = parseDuration(v);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration such as 300, 30s, 5m, 1h or 30d' });
        return z.NEVER;
      }
      return ms;
    });

/**
 * A retention (RETENTION_1M ...): a duration of at least 8 days, the quality score's 7-day
 * window and a day more (docs/DECISIONS.md, Retention); unset or blank: kept for ever.
 */
export const optionalRetention = optionalString.transform((v, ctx) => {
  if (v === undefined) return undefined;
  const ms = parseDuration(v);
  if (ms === null || ms < 8 * 86_400_000) {
    ctx.addIssue({ code: 'custom', message: 'must be a duration of at least 8 days, such as 400d' });
    return z.NEVER;
  }
  return ms;
});

export const retentionVar = (tf: CandleTimeframe) => `RETENTION_${tf.toUpperCase()}` as const;
export const retentionOf = (vars: Record<ReturnType<typeof retentionVar>, number | undefined>, tf: CandleTimeframe) => vars[retentionVar(tf)];

/** A venue base URL: http(s) for REST, ws(s) for sockets; no trailing slash kept. */
export const venueUrl = (def: string, schemes: RegExp) =>
  z
    .string()
    .default(def)
    .refine((v) => schemes.test(v) && URL.canParse(v), { message: `must be a ${schemes.source.slice(1, -1).replace(/[()?:]/g, '')} URL` })
    .transform((v) => v.replace(/\/+$/, ''));

export const weightPerMinute = (def: number) => z.coerce.number().int().min(1).max(1_000_000).default(def);

/** A comma-separated list of PostgreSQL URLs (blank items dropped, duplicates refused). */
export function parseReplicaUrls(text: string): string[] {
  const urls = text.split(',').map((u) => u.trim()).filter((u) => u !== '');
  for (const u of urls) if (!/^postgres(ql)?:\/\//.test(u) || !URL.canParse(u)) throw new Error(`${u.replace(/\/\/[^@/]*@/, '//…@')}: must be a postgres:// or postgresql:// URL`);
  if (new Set(urls).size !== urls.length) throw new Error('lists one URL twice');
  return urls;
}

export interface HostPort {
  host: string;
  port: number;
}

/** The port Redis Sentinel listens on unless told otherwise. */
const SENTINEL_PORT = 26379;

/**
 * A comma-separated list of sentinels: `host:port`, `[ipv6]:port`, or a bare host on the
 * sentinel port (blank items dropped, duplicates refused).
 */
export function parseSentinels(text: string): HostPort[] {
  const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new Error('lists no sentinel');
  const out = items.map((item) => {
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]/@]+))(?::(\d+))?$/.exec(item);
    const port = m?.[3] === undefined ? SENTINEL_PORT : Number(m[3]);
    if (!m || port < 1 || port > 65535) throw new Error(`${item}: must be host:port, such as 10.0.0.5:26379`);
    return { host: m[1] ?? m[2], port };
  });
  if (new Set(out.map((s) => `${s.host}:${s.port}`)).size !== out.length) throw new Error('lists one sentinel twice');
  return out;
}
