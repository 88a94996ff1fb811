/**
 * The REST surface as data, for the OpenAPI document (rest/openapi.ts): each operation's path,
 * security, parameters (the endpoints' own parameters, the very ones that validate), body schema,
 * success schema (the serializers' own shapes) and its own error codes. A test checks real
 * bodies against these schemas.
 */
import { z } from 'zod';
import { KEY_HASH_RE } from '../domain/api-keys';
import { ERROR_CODES, type ErrorCode } from '../domain/errors';
import type { Exchanges } from '../domain/exchanges';
import type { Param } from '../domain/params/param';
import type { Endpoint } from '../domain/params/endpoint';
import type { MarketEndpoints } from '../domain/params/market-endpoints';
import { INDEX_SCHEMA } from './index.route';
import { KEY_LIST_SCHEMA, KEY_REVOCATION, NEW_API_KEY } from './serializers/api-key.serializer';
import { HEALTH_SCHEMA, LIVE_SCHEMA, READY_SCHEMA } from './serializers/health.serializer';
import { NEW_KEY_BODY } from './serializers/new-key.body';
import { marketOperations } from './openapi.market-operations';

/** `pageOrApiKey`: GET /graphql, the Sandbox page without a key, operations with one. */
export type Security = 'apiKey' | 'pageOrApiKey' | 'admin' | 'metrics' | 'public';

export interface Operation {
  method: 'get' | 'post' | 'delete';
  path: string;
  operationId: string;
  tag: 'Market data' | 'Features' | 'Quality' | 'Keys' | 'Service';
  summary: string;
  description?: string;
  security: Security;
  /** The endpoint behind the operation: its parameters (in check order) and codes. */
  endpoint?: Endpoint;
  /** Query parameters beyond the endpoint's (format). */
  query?: readonly Param[];
  pathParams?: Array<{ name: string; schema: z.ZodType; description: string }>;
  body?: z.ZodType;
  /**
   * The success response; `nextStartHeader` documents X-Next-Start (format=csv); `conditional`
   * the ETag, Cache-Control and Vary headers and the 304 to If-None-Match (rest/conditional.ts).
   */
  ok: { status: number; description: string; schema?: z.ZodType; nextStartHeader?: boolean; conditional?: boolean; contentType?: string; alsoStatus?: number };
  /** Errors as GraphQL answers them (`errors[].extensions.code`), not the REST envelope. */
  graphqlErrors?: boolean;
  /** Codes beyond the parameters' own and the security scheme's. */
  errors?: readonly ErrorCode[];
}

export const ENVELOPE = z.object({
  error: z.enum(ERROR_CODES).meta({ description: 'Stable error code.' }),
  message: z.string().meta({ description: 'Human-readable reason.' }),
  request_id: z.string().meta({ description: 'Correlates with the server log line and X-Request-Id.' }),
  retry_after_secs: z.number().int().optional().meta({ description: '429: seconds until the window resets (also Retry-After).' }),
  upgrade_url: z.string().optional().meta({ description: '403 TIER_LIMIT_EXCEEDED: where to upgrade.' }),
});

export const GRAPHQL_ERRORS = z.object({
  data: z.unknown().optional(),
  errors: z.array(
    z
      .object({
        message: z.string(),
        extensions: z.object({ code: z.string(), request_id: z.string().optional(), retry_after_secs: z.number().int().optional() }).catchall(z.unknown()),
      })
      .catchall(z.unknown()),
  ),
});

// ---- the operations ---------------------------------------------------------------------

/** What the services add after an endpoint's checks: the plan's rules. */
export function operations(endpoints: MarketEndpoints, exchanges: Exchanges): Operation[] {
  return [
    ...marketOperations(endpoints, exchanges),
    {
      method: 'post',
      path: '/v1/auth/keys',
      operationId: 'createKey',
      tag: 'Keys',
      summary: 'Create an API key (admin)',
      description: 'The full key appears only in this response; only its SHA-256 is stored. Body: JSON, at most 16 KB.',
      security: 'admin',
      body: NEW_KEY_BODY,
      ok: { status: 201, description: 'The new key.', schema: NEW_API_KEY.schema },
      errors: ['KEY_CREATION_DISABLED', 'INVALID_TIER', 'MISSING_PARAMETER', 'INVALID_PARAMETER'],
    },
    {
      method: 'get',
      path: '/v1/auth/keys',
      operationId: 'listKeys',
      tag: 'Keys',
      summary: "The calling key's user's keys",
      security: 'apiKey',
      ok: { status: 200, description: 'Keys, oldest first.', schema: KEY_LIST_SCHEMA },
    },
    {
      method: 'delete',
      path: '/v1/auth/keys/{key_hash}',
      operationId: 'revokeKey',
      tag: 'Keys',
      summary: 'Revoke a key of the same user',
      description: 'Idempotent: revoking a revoked key answers as the first time did.',
      security: 'apiKey',
      pathParams: [{ name: 'key_hash', schema: z.string().regex(KEY_HASH_RE), description: 'SHA-256 hex of the key.' }],
      ok: { status: 200, description: 'The key is revoked.', schema: KEY_REVOCATION.schema },
      errors: ['KEY_NOT_FOUND'],
    },
    {
      method: 'get',
      path: '/',
      operationId: 'index',
      tag: 'Service',
      summary: 'Where to go from here',
      description: 'Links to the docs, the OpenAPI document, GraphQL, the dashboard, GraphiQL and health. JSON by default; a small HTML page for Accept: text/html.',
      security: 'public',
      ok: { status: 200, description: 'The service and its links.', schema: INDEX_SCHEMA },
    },
    {
      method: 'get',
      path: '/health',
      operationId: 'health',
      tag: 'Service',
      summary: 'Dependency health',
      description: '200 when every dependency answers, 503 otherwise (same body).',
      security: 'public',
      ok: { status: 200, description: 'Healthy.', schema: HEALTH_SCHEMA, alsoStatus: 503 },
    },
    {
      method: 'get',
      path: '/health/live',
      operationId: 'healthLive',
      tag: 'Service',
      summary: 'Liveness probe',
      description: '200 while the process serves requests; it checks no dependency (an outage is no reason to restart).',
      security: 'public',
      ok: { status: 200, description: 'Serving.', schema: LIVE_SCHEMA },
    },
    {
      method: 'get',
      path: '/health/ready',
      operationId: 'healthReady',
      tag: 'Service',
      summary: 'Readiness probe',
      description: '200 while the instance may take traffic; 503 while it drains after SIGTERM, or while the database or the quota store is unreachable.',
      security: 'public',
      ok: { status: 200, description: 'Ready.', schema: READY_SCHEMA, alsoStatus: 503 },
    },
    {
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'openapi',
      tag: 'Service',
      summary: 'This document',
      security: 'public',
      ok: { status: 200, description: 'OpenAPI 3.1.', schema: z.object({}).catchall(z.unknown()) },
    },
    {
      method: 'get',
      path: '/docs',
      operationId: 'docs',
      tag: 'Service',
      summary: 'This document, rendered (Swagger UI)',
      security: 'public',
      ok: { status: 200, description: 'HTML page.', contentType: 'text/html' },
    },
    {
      method: 'get',
      path: '/dashboard',
      operationId: 'dashboard',
      tag: 'Service',
      summary: 'Dashboard: charts of every market (candles, indicators, funding, data quality), live',
      description: 'A page served by the service (no CDN). It asks for an API key and reads everything through GraphQL with it: queries over POST /graphql, live updates over graphql-ws on /graphql.',
      security: 'public',
      ok: { status: 200, description: 'HTML page.', contentType: 'text/html' },
    },
    {
      method: 'get',
      path: '/graphiql',
      operationId: 'graphiql',
      tag: 'Service',
      summary: 'GraphiQL, served by the service: the GraphQL explorer that works without internet',
      description: 'Queries with the X-API-Key header, subscriptions over graphql-ws on /graphql. Apollo Sandbox (GET /graphql in a browser) loads from a CDN instead.',
      security: 'public',
      ok: { status: 200, description: 'HTML page.', contentType: 'text/html' },
    },
    {
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      tag: 'Service',
      summary: 'Prometheus metrics',
      description: 'Text exposition format. Needs Authorization: Bearer <METRICS_TOKEN> when that is set.',
      security: 'metrics',
      ok: { status: 200, description: 'Prometheus text format 0.0.4.', contentType: 'text/plain' },
    },
    ...(['get', 'post'] as const).map(
      (method): Operation => ({
        method,
        path: '/graphql',
        operationId: method === 'get' ? 'graphqlGet' : 'graphqlPost',
        tag: 'Service',
        summary: method === 'get' ? 'GraphQL (query in the URL) or the Sandbox page in a browser' : 'GraphQL',
        description:
          'The same domain as the REST routes (schema.graphql). Refusals before execution keep their HTTP status (401, 429, 503; 400 QUERY_TOO_COMPLEX' +
          (method === 'post' ? '; 400 INVALID_PARAMETER for a body that is not application/json, over 64 KB or not JSON, checked after the key and the quota' : '') +
          '); errors during execution come with 200 and errors[].extensions.code.',
        security: method === 'get' ? 'pageOrApiKey' : 'apiKey',
        graphqlErrors: true,
        ...(method === 'post' && {
          body: z.object({
            query: z.string(),
            variables: z.record(z.string(), z.unknown()).optional(),
            operationName: z.string().optional(),
          }),
        }),
        ok: { status: 200, description: 'A GraphQL response: data and/or errors.', schema: z.object({ data: z.unknown(), errors: z.array(z.unknown()).optional() }) },
        errors: method === 'post' ? ['INVALID_PARAMETER', 'QUERY_TOO_COMPLEX'] : ['QUERY_TOO_COMPLEX'],
      }),
    ),
  ];
}

