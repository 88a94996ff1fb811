/** Every request-target made routable before Express sees it. */
import type { IncomingMessage, RequestListener } from 'node:http';
import parseurl from 'parseurl';

/**
 * Express's router skips every layer, the 404 envelope and the request id included, when it
 * finds no path in the request-target (`/\x@#y` parses as a host `x` with no path), and the
 * client would get Express's own HTML page. Characters an origin-form target never holds
 * (`#`, `\`) are percent-encoded, and a target that still has no path is given one, so such
 * a request reaches the routers and, matching none, gets the 404 envelope.
 */
export function withRoutableTarget(handle: RequestListener): RequestListener {
  return (req, res) => {
    req.url = routableTarget(req.url ?? '/');
    handle(req, res);
  };
}

export function routableTarget(url: string): string {
  const escaped = url.includes('#') || url.includes('\\') ? url.replaceAll('#', '%23').replaceAll('\\', '%5C') : url;
  return parseurl({ url: escaped } as IncomingMessage)?.pathname == null ? `/${encodeURIComponent(escaped)}` : escaped;
}
