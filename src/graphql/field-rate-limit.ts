/**
 * Per-field rate limits for expensive GraphQL fields, with graphql-rate-limit. Its own stores read
 * the call timestamps, then write them back, so two concurrent calls can both pass; here the
 * limiter runs read-only and its store's read *is* the atomic check-and-increment of the shared
 * quota store (memory or Redis), so a field limit holds across instances and under concurrency.
 * A refused call consumes nothing and carries retry_after_secs.
 * Use: `@RateLimited({ max: 30, windowMs: 60_000 })` on a resolver method.
 */
import { getGraphQLRateLimiter } from 'graphql-rate-limit';
import { UseMiddleware, type ResolverData } from 'type-graphql';
import { AppError } from '../domain/errors';
import { secondsUntilReset } from '../domain/quota';
import type { QuotaStore } from '../services/quota/quota-store';
import type { GqlContext } from './context';

export interface FieldLimit {
  max: number;
  windowMs: number;
}

interface Identity {
  contextIdentity: string;
  fieldIdentity: string;
}

export type FieldLimiter = (limit: FieldLimit, data: ResolverData<GqlContext>) => Promise<void>;

/** One limiter for the app, over the same store as the request quotas. */
export function createFieldLimiter(store: QuotaStore, clock: () => number = Date.now): FieldLimiter {
  const limiters = new Map<string, ReturnType<typeof getGraphQLRateLimiter>>();
  const limiterFor = (limit: FieldLimit) => {
    const id = `${limit.max}/${limit.windowMs}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = getGraphQLRateLimiter({
        identifyContext: (ctx: GqlContext) => ctx.principal.keyHash,
        store: {
          // Admit-and-count atomically, then hand the library a list whose length makes it
          // decide the same way: empty when admitted, `max` entries when refused.
          async getForIdentity(identity: Identity): Promise<number[]> {
            const r = await store.consume(
              identity.contextIdentity,
              [{ name: `field:${identity.fieldIdentity}`, limit: limit.max, ms: limit.windowMs }],
              clock(),
            );
            return new Array<number>(r.allowed ? 0 : limit.max).fill(Date.now());
          },
          setForIdentity: () => undefined, // read-only limiter: never called
        },
      });
      limiters.set(id, limiter);
    }
    return limiter;
  };

  return async (limit, { args, context, info, root }) => {
    let refused: string | undefined;
    try {
      refused = await limiterFor(limit)(
        { parent: root, args, context, info },
        { max: limit.max, window: `${limit.windowMs}ms`, readOnly: true },
      );
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', 'the rate-limit store is temporarily unavailable; retry shortly', { dependency: 'redis' }, err);
    }
    if (refused) {
      const now = clock();
      const retry = secondsUntilReset(now, limit.windowMs);
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `field ${info.fieldName} is limited to ${limit.max} calls per ${limit.windowMs / 1000} s on every plan; resets in ${retry} s`,
        { retry_after_secs: retry },
      );
    }
  };
}

/** Decorator: limit calls of this field per API key. */
export function RateLimited(limit: FieldLimit): MethodDecorator & PropertyDecorator {
  return UseMiddleware(async (data: ResolverData<GqlContext>, next) => {
    await data.context.limitField(limit, data);
    return next();
  });
}
