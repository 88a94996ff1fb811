/**
 * The fuzz tests' wire: what a request put on the wire (Sent) and what came back (Got), sent
 * by the raw client (no normalization: raw paths and junk percent-encoding reach the server),
 * and the encodings a client can use.
 */
import type http from 'node:http';
import { keepAliveAgent, rawRequest } from '../http-client';

export interface Sent {
  method: string;
  /** The request target exactly as sent (only what node:http refuses is pre-encoded). */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** The body as text before any Content-Encoding, for the reflection check. */
  plainBody?: string;
}

export interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  ms: number;
}

export const agent = keepAliveAgent(4);

export async function send(base: string, r: Sent): Promise<Got> {
  const res = await rawRequest(base, { method: r.method, path: r.path, headers: r.headers, body: r.body }, agent);
  return { status: res.status, headers: res.headers, text: res.text, ms: res.ms };
}

// ---- encodings: what a client can put on the wire ------------------------------------------

/** Percent-encode the UTF-8 bytes of `s`, keeping only the characters `keep` matches. */
export function pct(s: string, keep: RegExp): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(b);
    out += b < 0x80 && keep.test(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
export const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** Everything node:http lets through raw in a request target stays raw (%, &, =, ", ...). */
export const RAW = /[\x21-\x7e]/;

/** A header value as raw bytes: UTF-8 sent as latin1, minus what node:http refuses. */
export function hv(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1').replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
}
