/**
 * The user's API key, kept for the browser tab only (sessionStorage), shared by /dashboard
 * and /graphiql (same origin): a key entered on one page is there on the other.
 */
const STORAGE_KEY = 'mds.apiKey';

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY) || null;
  } catch {
    return null; // storage disabled: the key lives in the page only
  }
}

export function storeKey(key: string | null): void {
  try {
    if (key) sessionStorage.setItem(STORAGE_KEY, key);
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage disabled
  }
}

/** The key's first characters, enough to tell keys apart on screen. */
export const keyHint = (key: string) => `${key.slice(0, 9)}…`;

/** ws:// or wss:// URL of a path on this origin. */
export function socketUrl(pathname: string): string {
  const u = new URL(pathname, location.href);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  return u.toString();
}
