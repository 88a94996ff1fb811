/**
 * How every /v1 data route answers, in one order (docs/ARCHITECTURE.md, Read path): compression,
 * the key and quota, the format (checked before the read's own parameters), the service's read
 * plan, its page through the write watermark (a 304 when the client holds it; a small JSON page
 * kept in memory while its watermarks hold: response-cache.ts), then the route's representation
 * of it: JSON, CSV, Parquet or Arrow, tagged and sent. A route is a declaration:
 * its path, how a caller's parameters become a plan, and its serializer's representation.
 */
import compression from 'compression';
import type { RequestHandler, Router } from 'express';
import type { RawParams } from '../domain/params/param';
import type { AccessService } from '../services/access/access.service';
import type { Principal } from '../services/access/principal';
import type { PageTags } from '../services/reads/page-tags.service';
import type { Marked, ReadPlan } from '../services/reads/read-plan';
import type { ResponseCache } from '../services/reads/response-cache';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { readConditional, sendJsonPage, tagInputs } from './conditional';
import { sendCsv } from './csv';
import { sendDataframe } from './dataframe.writer';
import { parseFormat } from './format';
import type { PageTable } from './page-table';

/** A plan whose request has the end the client may give (its tag counts an omitted end as open). */
export type DataPlan = ReadPlan<{ end: number }, unknown>;

type PageOf<Plan> = Plan extends ReadPlan<unknown, infer P> ? P : never;
type RequestOf<Plan> = Plan extends ReadPlan<infer Q, unknown> ? Q : never;

/** A route's page as each format sends it (its serializer, rest/serializers): JSON read as `J`, tables of `Row`. */
export interface Representation<Plan extends DataPlan, J, Row> {
  /** The JSON representation's own read, when it is not the plan's (rows the database rendered). */
  readJson?: (plan: Plan) => Promise<Marked<J>>;
  /** The whole JSON body of a page, as bytes. */
  json(request: RequestOf<Plan>, page: J): Uint8Array;
  /** The page as a table: CSV, Parquet and Arrow. */
  table(request: RequestOf<Plan>, page: PageOf<Plan>): PageTable<Row>;
}

const compress = compression({ threshold: 1024 });

/**
 * gzip or br for bodies over 1 KB when the client accepts them: part of every data route, whose
 * bodies can be large (elsewhere the middleware's per-response cost buys nothing). A request
 * that accepts no encoding skips the middleware's wrapping of the response, and gets the
 * `Vary: Accept-Encoding` it would have set.
 */
export const compressed: RequestHandler = function compressed(req, res, next) {
  if (req.headers['accept-encoding'] !== undefined) return compress(req, res, next);
  res.vary('Accept-Encoding');
  next();
};

export interface DataRouteDeps {
  access: AccessService;
  tags: PageTags;
  responses: ResponseCache;
}

/** Declare `GET path` on `router` as a data route: the key, the plan of the caller's parameters, the representation. */
export function dataRoute<Plan extends DataPlan, J, Row>(
  router: Router,
  path: string,
  deps: DataRouteDeps,
  planOf: (caller: Principal, raw: RawParams) => Promise<Plan>,
  representation: Representation<Plan, J, Row>,
): void {
  router.get(path, compressed, requireApiKey(deps.access), async (req, res) => {
    const format = parseFormat(req.query);
    const plan = await planOf(principalOf(req), req.query);
    const inputs = tagInputs(req, format, plan);
    const request = plan.request as RequestOf<Plan>;
    if (format === 'json') {
      // A small page kept from an earlier answer, while no watermark of its scope has moved.
      // The route is part of the key: /v1/ohlcv and /v1/derivatives normalize the same parameters alike.
      const key = plan.scope === null ? null : `${path}\0${inputs.params}\0${plan.scope.endMs}`;
      const kept = key === null ? null : deps.responses.get(key);
      if (kept !== null) return void sendJsonPage(req, res, { ...inputs, known: { tag: kept.tag, nextStart: null } }, kept.body);
      const ticket = deps.responses.ticket();
      const read = representation.readJson ?? ((p: Plan) => p.read() as Promise<Marked<J>>);
      const page = await readConditional(req, res, deps.tags, inputs, plan.scope, () => read(plan));
      if (page === null) return;
      const body = representation.json(request, page);
      const tag = sendJsonPage(req, res, inputs, body);
      if (key !== null) deps.responses.put(key, plan.scope!, ticket, { body, tag });
      return;
    }
    const page = await readConditional(req, res, deps.tags, inputs, plan.scope, () => plan.read() as Promise<Marked<PageOf<Plan>>>);
    if (page === null) return;
    const table = representation.table(request, page);
    if (format === 'csv') return sendCsv(req, res, table, inputs);
    return sendDataframe(req, res, format, table, inputs);
  });
}
