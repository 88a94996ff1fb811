/**
 * A raw HTTP client over node:http for tests that must control the bytes on the wire: the
 * request target exactly as given (no normalization of paths or percent-encoding), every
 * header as given, and the response body both as received and decoded.
 */
import http from 'node:http';
import zlib from 'node:zlib';

export interface RawRequest {
  method?: string;
  /** The request target exactly as sent. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body after Content-Encoding is undone, as UTF-8 text. */
  text: string;
  /** The body after Content-Encoding is undone, as bytes. */
  bytes: Buffer;
  ms: number;
}

export const keepAliveAgent = (maxSockets = 4) => new http.Agent({ keepAlive: true, maxSockets });

function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
      return zlib.gunzipSync(body);
    case 'br':
      return zlib.brotliDecompressSync(body);
    case 'deflate':
      return zlib.inflateSync(body);
    default:
      return body;
  }
}

/**
 * Send one request to `base` (`http://host:port`). The body goes as bytes with an explicit
 * Content-Length: node:http frames a body of GET, DELETE or OPTIONS with neither that nor
 * chunked encoding, and would write a string body's header bytes over 0x7f twice.
 */
export function rawRequest(base: string, r: RawRequest, agent?: http.Agent, timeoutMs = 30_000): Promise<RawResponse> {
  const u = new URL(base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    const headers = body === undefined ? r.headers : { ...r.headers, 'Content-Length': String(body.length) };
    const method = r.method ?? 'GET';
    const req = http.request({ host: u.hostname, port: u.port, method, path: r.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        try {
          const bytes = decode(Buffer.concat(chunks), res.headers['content-encoding']);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, text: bytes.toString('utf8'), ms: performance.now() - started });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
