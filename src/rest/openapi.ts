/**
 * The OpenAPI 3.1 document of the REST surface, generated at start-up from the objects that
 * do the work: each operation's parameters are its endpoint's own parameters (domain/params), the
 * response schemas are the serializers' shapes, the key-creation body is the schema key
 * creation checks, error codes come from those parameters plus the operation's own rules, and
 * statuses from the one code -> HTTP table. Served at GET /v1/openapi.json, rendered at GET /docs.
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../domain/errors';
import type { Exchanges } from '../domain/exchanges';
import type { Param } from '../domain/params/param';
import { paramList } from '../domain/params/endpoint';
import type { MarketEndpoints } from '../domain/params/market-endpoints';
import { HTTP_STATUS } from '../transport/http-status';
import { MAX_AGE_S, SETTLED_MS } from './conditional';
import { ENVELOPE, GRAPHQL_ERRORS, operations, type Operation, type Security } from './openapi.operations';

export { operations };

type Json = Record<string, unknown>;

// ---- rendering --------------------------------------------------------------------------

function jsonSchema(schema: z.ZodType): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
}

const TAGS: Record<Operation['tag'], string> = {
  'Market data': 'Candles, funding, one field across symbols, and what markets exist.',
  Features: 'Pre-computed technical, funding and premium features, and their catalogue.',
  Quality: 'The Data Quality Score of each market and timeframe.',
  Keys: 'API keys: creation (admin), listing and revocation.',
  Service: 'The index, health, this document, metrics and GraphQL.',
};

/** Operations that take X-API-Key: metered, with the rate-limit headers. */
const keyed = (s: Security) => s === 'apiKey' || s === 'pageOrApiKey';
const KEY_CODES: ErrorCode[] = ['UNAUTHORIZED', 'RATE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE', 'DATABASE_ERROR'];

const SECURITY_CODES: Record<Security, ErrorCode[]> = {
  apiKey: KEY_CODES,
  pageOrApiKey: KEY_CODES,
  admin: ['UNAUTHORIZED', 'SERVICE_UNAVAILABLE', 'DATABASE_ERROR'],
  metrics: ['UNAUTHORIZED'],
  public: [],
};

const SECURITY_REQUIREMENT: Record<Security, Json[] | undefined> = {
  apiKey: [{ ApiKey: [] }],
  pageOrApiKey: [{ ApiKey: [] }, {}],
  admin: [{ AdminToken: [] }],
  metrics: [{ MetricsToken: [] }, {}],
  public: [],
};

const header = (description: string, type = 'string') => ({ description, schema: { type } });
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  'X-RateLimit-Limit-Minute': { $ref: '#/components/headers/X-RateLimit-Limit-Minute' },
  'X-RateLimit-Remaining-Minute': { $ref: '#/components/headers/X-RateLimit-Remaining-Minute' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
};
const REQUEST_ID = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };

/** The JSON Schema of one value of the parameter (one item of a list), as clients send it. */
function valueSchema(p: Param): Json {
  if (p.kind === 'boolean') return { type: 'boolean' };
  return jsonSchema(p.schema);
}

function parameterOf(p: Param): Json {
  const value = { ...valueSchema(p), ...(p.default === undefined ? {} : { default: p.default }) };
  const out: Json = { name: p.name, in: 'query', required: p.required, description: p.description };
  if (p.kind === 'list') {
    out.schema = { type: 'array', items: value, minItems: p.required ? 1 : 0 };
    out.style = 'form';
    out.explode = false;
    out.description = `${p.description} Comma-separated; items trimmed, empty ones dropped, duplicates removed.`;
    if (p.examples.length) out.example = [p.examples[0]];
  } else {
    out.schema = value;
    if (p.examples.length) out.example = p.examples[0];
  }
  out['x-error-codes'] = p.codes;
  return out;
}

/** The query parameters of an operation: its endpoint's, in check order, then its own. */
const queryOf = (op: Operation): Param[] => [...(op.endpoint ? paramList(op.endpoint) : []), ...(op.query ?? [])];

function errorResponses(op: Operation): Record<string, Json> {
  const query = queryOf(op);
  const codes = new Set<ErrorCode>([...(op.endpoint?.codes ?? []), ...query.flatMap((p) => p.codes), ...(op.errors ?? []), ...SECURITY_CODES[op.security]]);
  if (query.length) codes.add('INVALID_PARAMETER'); // a parameter given twice
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of ERROR_CODES) {
    if (!codes.has(c)) continue;
    const st = HTTP_STATUS[c];
    byStatus.set(st, [...(byStatus.get(st) ?? []), c]);
  }
  const out: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const metered = keyed(op.security) && status !== 401 && status !== 503 && status !== 500;
    out[String(status)] = {
      description: list.join(', '),
      headers: {
        ...REQUEST_ID,
        ...(metered ? RATE_LIMIT_HEADERS : {}),
        ...(status === 429 ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
      },
      content: {
        'application/json': op.graphqlErrors
          ? {
              schema: { $ref: '#/components/schemas/GraphQLErrors' },
              examples: Object.fromEntries(list.map((c) => [c, { value: { errors: [{ message: '…', extensions: { code: c, request_id: '2f1d…' } }] } }])),
            }
          : {
              schema: {
                allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { error: { enum: list } } }],
              },
              examples: Object.fromEntries(list.map((c) => [c, { value: { error: c, message: '…', request_id: '2f1d…' } }])),
            },
      },
    };
  }
  // Any route: node:http itself refuses a request whose head is over 16 KB (431) or malformed
  // (400), with the envelope, before the route sees it.
  if (!Object.keys(out).some((status) => status.startsWith('4'))) {
    out['4XX'] = {
      description: 'The request itself is malformed: headers over 16 KB (431) or a bad request line (400).',
      headers: REQUEST_ID,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
}

/** JSON only: a typed client reads the body as JSON; `format` describes the other representations. */
function successResponse(op: Operation): Json {
  const headers: Json = { ...REQUEST_ID, ...(keyed(op.security) ? RATE_LIMIT_HEADERS : {}) };
  const content: Json = {};
  if (op.ok.schema) content['application/json'] = { schema: jsonSchema(op.ok.schema) };
  if (op.ok.contentType) content[op.ok.contentType] = { schema: { type: 'string' } };
  if (op.ok.nextStartHeader) {
    headers['X-Next-Start'] = { description: 'format=csv: start of the next page (absent on the last page).', schema: { type: 'string' } };
  }
  if (op.ok.conditional) Object.assign(headers, CACHING_HEADERS);
  return { description: op.ok.description, headers, content };
}

const CACHING_HEADERS: Json = {
  ETag: {
    description: 'Strong tag of this representation (format, parameters, rows, next page). Send it back in If-None-Match: 304 while the page is unchanged.',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: `private, max-age=${MAX_AGE_S} when end is given and its last period closed at least ${SETTLED_MS / 60_000} minutes ago; otherwise no-cache.`,
    schema: { type: 'string' },
  },
  Vary: { description: 'X-API-Key, Accept-Encoding.', schema: { type: 'string' } },
};

/** The answer to If-None-Match naming the current tag: no body, the same caching and rate-limit headers. */
function notModifiedResponse(op: Operation): Json {
  const headers: Json = { ...REQUEST_ID, ...(keyed(op.security) ? RATE_LIMIT_HEADERS : {}), ...CACHING_HEADERS };
  if (op.ok.nextStartHeader) headers['X-Next-Start'] = { description: 'format=csv: as on the 200.', schema: { type: 'string' } };
  return { description: 'Not modified: If-None-Match names the current ETag. Counted against the quotas.', headers };
}

function operationObject(op: Operation): Json {
  const parameters: Json[] = [
    ...(op.pathParams ?? []).map((p) => ({ name: p.name, in: 'path', required: true, description: p.description, schema: jsonSchema(p.schema) })),
    ...queryOf(op).map(parameterOf),
  ];
  if (op.path === '/graphql' && op.method === 'get') {
    parameters.push({ name: 'query', in: 'query', required: true, schema: { type: 'string' }, description: 'The GraphQL document.' });
  }
  const o: Json = {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: SECURITY_REQUIREMENT[op.security],
    ...(parameters.length ? { parameters } : {}),
    responses: {
      [String(op.ok.status)]: successResponse(op),
      ...(op.ok.alsoStatus ? { [String(op.ok.alsoStatus)]: { ...successResponse(op), description: 'A dependency is unavailable (same body).' } } : {}),
      ...(op.ok.conditional ? { '304': notModifiedResponse(op) } : {}),
      ...errorResponses(op),
    },
  };
  if (op.body) o.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } };
  return o;
}

/**
 * The whole document for this configuration: the served exchanges' names (in the endpoints'
 * parameters) and whether one backfills its context (nullable context columns).
 */
export function openApiDocument(endpoints: MarketEndpoints, exchanges: Exchanges, version: string): Json {
  const paths: Record<string, Json> = {};
  for (const op of operations(endpoints, exchanges)) (paths[op.path] ??= {})[op.method] = operationObject(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Market Data API',
      version,
      license: { name: 'Proprietary: for the subscribers of a plan', identifier: 'LicenseRef-Proprietary' },
      description:
        'OHLCV candles, funding rates, pre-computed features and data quality for crypto quants. Decimals are strings; times are ISO 8601 UTC. Every data request needs X-API-Key; every authenticated response carries the rate-limit headers.',
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { Error: jsonSchema(ENVELOPE), GraphQLErrors: jsonSchema(GRAPHQL_ERRORS) },
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'qp_… key from POST /v1/auth/keys.' },
        AdminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token', description: 'The server\'s ADMIN_TOKEN.' },
        MetricsToken: { type: 'http', scheme: 'bearer', description: 'The server\'s METRICS_TOKEN (only when it is set).' },
      },
      headers: {
        'X-Request-Id': header('Request id; also in error bodies and the server log.'),
        'X-RateLimit-Limit': header('Daily quota (scale: the minute quota).', 'integer'),
        'X-RateLimit-Remaining': header('Remaining in that window.', 'integer'),
        'X-RateLimit-Reset': header('Unix time (s) of the next minute reset.', 'integer'),
        'X-RateLimit-Limit-Minute': header('Per-minute quota.', 'integer'),
        'X-RateLimit-Remaining-Minute': header('Remaining this minute.', 'integer'),
        'RateLimit-Policy': header('IETF draft: the quota windows, e.g. "minute";q=100;w=60, "day";q=50000;w=86400.'),
        RateLimit: header('IETF draft: the window nearest exhaustion, e.g. "minute";r=99;t=42.'),
        'Retry-After': header('Seconds until the exceeded window resets.', 'integer'),
      },
    },
  };
}
