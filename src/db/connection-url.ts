/**
 * libpq's connection URLs, multi-host form included (`postgresql://u@h1:5432,h2:5432/db?
 * target_session_attrs=read-write`, as pg_auto_failover and Patroni hand out), which neither
 * node-postgres nor Prisma's adapter reads. Each host becomes a pg client config of its own,
 * parsed by pg-connection-string with libpq's sslmode meanings; `prefer` and `allow` list the
 * two ways to try in libpq's order (encrypted first for prefer, plain first for allow).
 */
import type { ClientConfig } from 'pg';
import { parse } from 'pg-connection-string';

export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

export interface HostConfig {
  /** `host:port`, for logs and metrics. */
  name: string;
  /** The configs to try on this host, in order (two for sslmode prefer/allow). */
  attempts: ClientConfig[];
}

export interface ConnectionTarget {
  hosts: HostConfig[];
  /** Which host to use: `any` takes the first that answers; `read-write`/`primary` the one not in recovery. */
  targetSessionAttrs: TargetSessionAttrs;
}

/** Parameters this module interprets itself (the rest go to pg-connection-string as they are). */
const OWN_PARAMS = new Set(['target_session_attrs', 'sslmode']);

export function parseConnectionUrl(url: string): ConnectionTarget {
  const m = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/.exec(url);
  if (!m) throw new Error('not a postgres:// or postgresql:// URL');
  const [, scheme, userInfo, hostList, rest] = m;
  const query = new URLSearchParams(rest.includes('?') ? rest.slice(rest.indexOf('?') + 1).split('#')[0] : '');
  const attrs = query.get('target_session_attrs') ?? 'any';
  if (attrs !== 'any' && attrs !== 'read-write' && attrs !== 'primary') {
    throw new Error(`target_session_attrs=${attrs} is not supported (any, read-write, primary)`);
  }
  const sslmode = query.get('sslmode');
  const passOn = new URLSearchParams([...query].filter(([k]) => !OWN_PARAMS.has(k)));
  const path = rest.split('?')[0];
  const hosts = hostList === '' ? [''] : splitHosts(hostList);
  return {
    targetSessionAttrs: attrs,
    hosts: hosts.map((host) => {
      const single = (mode: string | null) => {
        const q = new URLSearchParams(passOn);
        if (mode) q.set('sslmode', mode);
        const text = `${scheme}${userInfo !== undefined ? `${userInfo}@` : ''}${host}${path}${q.size ? `?${q}` : ''}`;
        return parse(text, { useLibpqCompat: true }) as ClientConfig;
      };
      // libpq's order: prefer tries encryption first, allow tries it second.
      const attempts = sslmode === 'prefer' ? [single('prefer'), single('disable')] : sslmode === 'allow' ? [single('disable'), single('prefer')] : [single(sslmode)];
      const first = attempts[0];
      return { name: first.host && first.host.startsWith('/') ? first.host : `${first.host || 'localhost'}:${first.port || 5432}`, attempts };
    }),
  };
}

/** `h1:5432,[::1]:5433,h3` into its hosts, each kept in URL form (`[::1]:5433`). */
function splitHosts(list: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < list.length) {
    const end = list[at] === '[' ? list.indexOf(',', list.indexOf(']', at)) : list.indexOf(',', at);
    out.push(list.slice(at, end < 0 ? list.length : end));
    at = end < 0 ? list.length : end + 1;
  }
  return out.filter((h) => h !== '');
}

/** True when the URL names more than one host or asks for a writable one: the primary must be located. */
export function needsLocating(target: ConnectionTarget): boolean {
  return target.hosts.length > 1 || target.targetSessionAttrs !== 'any' || target.hosts.some((h) => h.attempts.length > 1);
}
