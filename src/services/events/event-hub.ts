/**
 * The subscribers of this process: one listener on the bus, and per topic the subscriptions
 * waiting for its events, each an async iterator with a queue of its own. A subscriber that
 * falls QUEUE_LIMIT events behind (a client that stopped reading) is ended with an error
 * rather than holding memory without bound.
 */
import { AppError } from '../../domain/errors';
import { topicOf, type EventBus, type MarketEvent } from './market-events';

/** Events one subscription may have waiting (a minute of 1m closes is one). */
export const QUEUE_LIMIT = 1_000;

/** Hands an event's values to one subscriber; returns how many. */
type Listener = (event: MarketEvent) => number;

export class EventHub {
  private readonly topics = new Map<string, Set<Listener>>();
  private readonly unlisten: () => void;

  /** `onDelivered`: told how many values each event handed to subscribers (metrics). */
  constructor(bus: EventBus, onDelivered: (n: number) => void = () => undefined) {
    this.unlisten = bus.listen((event) => {
      const listeners = this.topics.get(topicOf(event));
      if (!listeners) return;
      let n = 0;
      for (const l of [...listeners]) n += l(event);
      onDelivered(n);
    });
  }

  /** Subscriptions open in this process. */
  get size(): number {
    let n = 0;
    for (const set of this.topics.values()) n += set.size;
    return n;
  }

  /**
   * The events of `topic` from now on, each turned into what the subscriber gets (`items`: none,
   * one or several values). `onEnd` runs once, when the iterator ends for any reason.
   */
  iterate<T>(topic: string, items: (event: MarketEvent) => readonly T[], onEnd: () => void = () => undefined): AsyncIterableIterator<T> {
    const queue: T[] = [];
    let waiting: ((r: IteratorResult<T>) => void) | null = null;
    let failure: AppError | null = null;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const set = this.topics.get(topic);
      set?.delete(listener);
      if (set?.size === 0) this.topics.delete(topic);
      onEnd();
    };
    const listener: Listener = (event) => {
      const values = items(event);
      for (const value of values) {
        if (waiting) {
          const w = waiting;
          waiting = null;
          w({ value, done: false });
        } else if (queue.length < QUEUE_LIMIT) queue.push(value);
        else {
          failure = new AppError('SERVICE_UNAVAILABLE', `subscription ended: more than ${QUEUE_LIMIT} events were waiting for the client`);
          end();
          return 0;
        }
      }
      return values.length;
    };
    let set = this.topics.get(topic);
    if (!set) this.topics.set(topic, (set = new Set()));
    set.add(listener);
    const done = (): IteratorResult<T> => ({ value: undefined, done: true });
    return {
      next() {
        if (queue.length > 0) return Promise.resolve({ value: queue.shift()!, done: false });
        if (failure) {
          const f = failure;
          failure = null;
          return Promise.reject(f);
        }
        if (ended) return Promise.resolve(done());
        return new Promise((resolve) => (waiting = resolve));
      },
      return() {
        queue.length = 0;
        end();
        waiting?.(done());
        waiting = null;
        return Promise.resolve(done());
      },
      throw(err: unknown) {
        end();
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  close(): void {
    this.unlisten();
    this.topics.clear();
  }
}
