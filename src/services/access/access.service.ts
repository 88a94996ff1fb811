/**
 * The one access path for every /v1 route and every GraphQL operation: authenticate the API key
 * (401), then count the request against the key's daily and per-minute quotas (429), returning the
 * quota status the rate-limit headers report. Parameters and tier rules come after, in the domain
 * services. Key lookups are cached for KEY_CACHE_TTL_MS, so under load a key costs at most a few
 * database reads per second per instance, and every instance sees a revocation within that bound.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { KeysRepository } from '../../db/keys.repository';
import { hashKey, KEY_PREFIX } from '../../domain/api-keys';
import { AppError } from '../../domain/errors';
import { quotaRefusal, quotaStatus, requestWindows, type QuotaStatus } from '../../domain/quota';
import { isTier } from '../../domain/tiers';
import type { TierPolicy } from './tier-policy';
import type { QuotaStore } from '../quota/quota-store';
import type { Principal } from './principal';

export const KEY_CACHE_TTL_MS = 500;

/** 429 carrying the quota status, so the refusal still gets its rate-limit headers. */
export class RateLimitedError extends AppError {
  constructor(
    readonly quota: QuotaStatus,
    message: string,
    retryAfterSecs: number,
  ) {
    super('RATE_LIMIT_EXCEEDED', message, { retry_after_secs: retryAfterSecs });
  }
}

/** An admitted request: who calls, and the quota left after counting this request. */
export interface Admission {
  principal: Principal;
  quota: QuotaStatus;
}

type CacheEntry = { at: number; principal: Principal | null; revoked: boolean };

export class AccessService {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<CacheEntry>>();

  constructor(
    private readonly keys: KeysRepository,
    private readonly quota: QuotaStore,
    readonly tiers: TierPolicy,
    private readonly adminToken: string | undefined,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Admin operations (key creation): KEY_CREATION_DISABLED when ADMIN_TOKEN is unset,
   * 401 when the presented token is missing or wrong (compared in constant time).
   */
  authenticateAdmin(token: string | undefined): void {
    if (!this.adminToken) {
      throw new AppError('KEY_CREATION_DISABLED', 'key creation is disabled: no admin token is configured on the server');
    }
    const a = createHash('sha256').update(token ?? '').digest();
    const b = createHash('sha256').update(this.adminToken).digest();
    if (token === undefined || !timingSafeEqual(a, b)) {
      throw new AppError('UNAUTHORIZED', 'missing or invalid X-Admin-Token header');
    }
  }

  /**
   * Authenticate the key, then count this request against its quotas: the whole admission of
   * one request. Throws 401, 429 (RateLimitedError) or 503; a 401 counts nothing.
   */
  async admit(apiKey: string | undefined): Promise<Admission> {
    const principal = await this.authenticate(apiKey);
    return { principal, quota: await this.countRequest(principal) };
  }

  async authenticate(apiKey: string | undefined): Promise<Principal> {
    if (apiKey === undefined || apiKey === '') throw new AppError('UNAUTHORIZED', 'missing X-API-Key header');
    if (!apiKey.startsWith(KEY_PREFIX) || apiKey.length > 200) throw new AppError('UNAUTHORIZED', 'invalid API key');
    const entry = await this.lookup(hashKey(apiKey));
    if (entry.revoked) throw new AppError('UNAUTHORIZED', 'API key revoked');
    if (!entry.principal) throw new AppError('UNAUTHORIZED', 'invalid API key');
    return entry.principal;
  }

  /**
   * Of the keys behind long-lived connections (GraphQL subscriptions), the ones revoked since:
   * read from the key store, not the cache, so a revocation anywhere is seen at the next check.
   */
  async revokedAmong(keyHashes: readonly string[]): Promise<string[]> {
    const revoked = await this.keys.revokedAmong(keyHashes);
    for (const h of revoked) this.cache.delete(h);
    return revoked;
  }

  /** Forget a key at once on this instance (others see the change within the TTL). */
  forget(keyHash: string): void {
    this.cache.delete(keyHash);
  }

  private async lookup(keyHash: string): Promise<CacheEntry> {
    const now = this.clock();
    const hit = this.cache.get(keyHash);
    if (hit && now - hit.at < KEY_CACHE_TTL_MS) return hit;
    let pending = this.inflight.get(keyHash);
    if (!pending) {
      pending = this.load(keyHash).finally(() => this.inflight.delete(keyHash));
      this.inflight.set(keyHash, pending);
    }
    return pending;
  }

  private async load(keyHash: string): Promise<CacheEntry> {
    let row;
    try {
      row = await this.keys.findByHash(keyHash);
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', 'the key store is temporarily unavailable; retry shortly', { dependency: 'database' }, err);
    }
    const entry: CacheEntry = {
      at: this.clock(),
      revoked: row?.revokedAt != null,
      principal: row && isTier(row.tier) ? { keyHash, keyHint: row.keyHint, userId: row.userId, tier: row.tier } : null,
    };
    if (this.cache.size > 100_000) this.cache.clear(); // bounded: a flood of random keys cannot grow it
    this.cache.set(keyHash, entry);
    return entry;
  }

  /** Count one request against the principal's daily and minute quotas; 429 when either is used up. */
  async countRequest(principal: Principal): Promise<QuotaStatus> {
    const limits = this.tiers.of(principal.tier);
    const now = this.clock();
    let result;
    try {
      result = await this.quota.consume(principal.keyHash, requestWindows(limits), now);
    } catch (err) {
      // Never serve unmetered: without the quota store the request is refused.
      throw new AppError('SERVICE_UNAVAILABLE', 'the rate-limit store is temporarily unavailable; retry shortly', { dependency: 'redis' }, err);
    }
    const [dayCount, minuteCount] = result.counts;
    const status = quotaStatus(principal.tier, limits, dayCount, minuteCount, now);
    if (result.allowed) return status;
    const refusal = quotaRefusal(status, dayCount, minuteCount);
    throw new RateLimitedError(status, refusal.message, refusal.retryAfterSecs);
  }
}
