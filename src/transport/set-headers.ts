import type { ServerResponse } from 'node:http';

/** Plain setHeader for each entry (Express's res.set adds per-header work we do not need). */
export function setHeaders(res: ServerResponse, headers: Record<string, string>): void {
  for (const name in headers) res.setHeader(name, headers[name]);
}
