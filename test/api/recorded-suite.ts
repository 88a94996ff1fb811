/**
 * The recorded-responses harness (recorded-responses.test.ts, recorded-responses-venues.test.ts):
 * every case of a set over real HTTP against its recording (status, headers but Date and
 * X-Request-Id, body), on the embedded database and (with DATABASE_URL) on PostgreSQL, which
 * must give the same bytes. What changes between runs is masked; market data runs on a fixed
 * clock. Re-record a set with `RECORD_RESPONSES=1 npm test -- <its test file>`.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import type { Services } from "../../src/composition";
import { HOUR, T0 } from "../helpers/fixtures";
import {
  keepAliveAgent,
  rawRequest,
  type RawResponse,
} from "../helpers/http-client";
import { startTestServer, type TestServer } from "../helpers/server";
import { databaseCases, type FreshDatabase } from "../helpers/databases";
import type {
  CaseContext,
  KeyKind,
  RecordedCase,
} from "./recorded-responses.cases";

const RECORD = process.env.RECORD_RESPONSES === "1";
/** The fixed clock of every set. */
export const NOW = T0 + 900 * HOUR + 30_000;
const ADMIN_TOKEN = "recorded-admin-token";

interface Recorded {
  name: string;
  request: string;
  status: number;
  headers: Record<string, string>;
  body?: unknown;
  sha256?: string;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** A UUID that depends only on the case's name, so inserting a case moves nothing else. */
const userOf = (name: string) => {
  const h = sha256(name);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** Timestamps of the real clock (key creation and revocation times), as the API renders them. */
function wallClockDates(): RegExp {
  const days = [-1, 0, 1].map((d) =>
    new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10),
  );
  return new RegExp(`(?:${days.join("|")})T\\d\\d:\\d\\d:\\d\\d\\+00:00`, "g");
}

function mask(text: string, requestId: string | undefined): string {
  let out = requestId ? text.split(requestId).join("<request_id>") : text;
  out = out
    .replace(/qp_[A-Za-z0-9_-]{43}/g, "<api_key>")
    .replace(/qp_[A-Za-z0-9_-]{6}…/g, "<key_hint>")
    .replace(/\b[0-9a-f]{64}\b/g, "<key_hash>")
    .replace(wallClockDates(), "<wall_clock>");
  return out;
}

const DROPPED_HEADERS = new Set(["date", "x-request-id"]);

function record(c: RecordedCase, request: string, res: RawResponse): Recorded {
  const id = res.headers["x-request-id"] as string | undefined;
  const volatile = new Set(c.volatile?.headers ?? []);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    if (DROPPED_HEADERS.has(k) || volatile.has(k) || v === undefined) continue;
    headers[k] = mask(Array.isArray(v) ? v.join(", ") : v, id);
  }
  const out: Recorded = { name: c.name, request, status: res.status, headers };
  const text = mask(res.text, id);
  if (c.volatile?.body === "none") return out;
  if (c.volatile?.body === "hash") return { ...out, sha256: sha256(text) };
  out.sha256 = sha256(text);
  out.body =
    /json/.test(headers["content-type"] ?? "") && text !== ""
      ? JSON.parse(text)
      : text;
  return out;
}

/** One set of recorded cases: its recording file, the server's extra environment, its data. */
export interface RecordedSet {
  title: string;
  file: string;
  cases: readonly RecordedCase[];
  env?: Record<string, string>;
  load(s: Services, nowMs: number): Promise<void>;
}

export function recordedResponses(set: RecordedSet): void {
  const { file: FILE, cases: CASES } = set;
  const recording: Recorded[] = RECORD
    ? []
    : (JSON.parse(readFileSync(FILE, "utf8")) as Recorded[]);

  describe.each(databaseCases())(
    `${set.title} on $name`,
    ({ name: storage, create }) => {
      let srv: TestServer;
      let db: FreshDatabase | null;
      const agent = keepAliveAgent();
      const got: Recorded[] = [];
      const send = (r: Parameters<typeof rawRequest>[1]) =>
        rawRequest(srv.url, r, agent);

      async function createKey(
        tier: string,
        userId: string,
      ): Promise<{ key: string; hash: string }> {
        const res = await send({
          method: "POST",
          path: "/v1/auth/keys",
          headers: {
            "Content-Type": "application/json",
            "X-Admin-Token": ADMIN_TOKEN,
          },
          body: JSON.stringify({ user_id: userId, tier }),
        });
        if (res.status !== 201)
          throw new Error(`key creation failed: ${res.status} ${res.text}`);
        const key = JSON.parse(res.text).key as string;
        return { key, hash: createHash("sha256").update(key).digest("hex") };
      }

      async function keyFor(
        kind: KeyKind,
        userId: string,
      ): Promise<string | undefined> {
        if (kind === "none") return undefined;
        if (kind === "invalid") return `qp_${"x".repeat(43)}`;
        if (kind !== "revoked") return (await createKey(kind, userId)).key;
        const k = await createKey("pro", userId);
        const res = await send({
          method: "DELETE",
          path: `/v1/auth/keys/${k.hash}`,
          headers: { "X-API-Key": k.key },
        });
        if (res.status !== 200)
          throw new Error(`revocation failed: ${res.status} ${res.text}`);
        return k.key;
      }

      beforeAll(async () => {
        db = await create();
        srv = await startTestServer({
          clock: () => NOW,
          database: db?.url,
          env: {
            UPGRADE_URL: "https://example.com/upgrade",
            ADMIN_TOKEN,
            LOG_LEVEL: "silent",
            ...set.env,
          },
        });
        await set.load(srv.services, NOW);
      }, 180_000);

      afterAll(async () => {
        agent.destroy();
        await srv?.stop();
        await db?.drop();
        if (RECORD && storage === "pglite")
          writeFileSync(FILE, JSON.stringify(got, null, 2) + "\n");
      });

      it.each(CASES.map((c) => [c.name, c] as const))(
        "%s",
        async (_name, c) => {
          const userId = userOf(c.name);
          const key = await keyFor(c.key ?? "pro", userId);
          let sibling: { key: string; hash: string } | undefined;
          const ctx: CaseContext = {
            sibling: async () => (sibling ??= await createKey("free", userId)),
          };
          const target =
            typeof c.path === "string" ? c.path : await c.path(ctx);
          const headers: Record<string, string> = { ...c.headers };
          if (key !== undefined) headers["X-API-Key"] = key;
          if (
            !Object.keys(headers).some(
              (h) => h.toLowerCase() === "accept-encoding",
            )
          )
            headers["Accept-Encoding"] = "identity";
          const request = {
            method: c.method ?? "GET",
            path: target,
            headers,
            body: c.body,
          };
          for (let i = 0; i < (c.before ?? 0); i++) await send(request);
          const res = await send(request);
          const answer = record(
            c,
            mask(`${request.method} ${target}`, undefined),
            res,
          );
          got.push(answer);
          if (RECORD) return;
          const expected = recording.find((r) => r.name === c.name);
          expect(expected).toBeDefined();
          expect(answer).toEqual(expected);
        },
      );

      it("records every case once", () => {
        if (RECORD) return;
        expect(recording.map((r) => r.name).sort()).toEqual(
          CASES.map((c) => c.name).sort(),
        );
      });
    },
  );
}
