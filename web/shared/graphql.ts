/**
 * GraphQL over HTTP against this service's /graphql with an API key (X-API-Key). A request
 * the service refuses as a whole (401, 429, 503, 400) throws RequestRefused; errors of single
 * fields come back beside the data, as the API sends them. Both carry the service's
 * extensions: code, request_id, and upgrade_url or retry_after_secs.
 */
export interface ApiError {
  message: string;
  code?: string;
  requestId?: string;
  upgradeUrl?: string;
  retryAfterSecs?: number;
}

interface WireError {
  message?: unknown;
  extensions?: Record<string, unknown>;
}

export function apiError(e: WireError | undefined): ApiError {
  const ext = e?.extensions ?? {};
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    message: typeof e?.message === 'string' ? e.message : 'request failed',
    code: str(ext.code),
    requestId: str(ext.request_id),
    upgradeUrl: str(ext.upgrade_url),
    retryAfterSecs: typeof ext.retry_after_secs === 'number' ? ext.retry_after_secs : undefined,
  };
}

export class RequestRefused extends Error {
  constructor(
    readonly error: ApiError,
    readonly status: number,
  ) {
    super(error.message);
  }
}

export interface GqlResult<T> {
  data: T;
  errors: ApiError[];
}

export async function gql<T>(key: string, query: string, variables: Record<string, unknown> = {}): Promise<GqlResult<T>> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json, application/json', 'X-API-Key': key },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    throw new RequestRefused({ message: 'the service cannot be reached', code: 'NETWORK' }, 0);
  }
  let body: { data?: T | null; errors?: WireError[] } | undefined;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const errors = (body?.errors ?? []).map(apiError);
  if (!body?.data) throw new RequestRefused(errors[0] ?? { message: `HTTP ${res.status}`, code: `HTTP_${res.status}` }, res.status);
  return { data: body.data, errors };
}
