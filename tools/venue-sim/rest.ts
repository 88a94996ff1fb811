/** What the simulated REST endpoints share: the context they read, and the shape of an answer. */
import type { Faults } from './faults';
import type { SimMarket } from './market';
import type { SimVenue } from './venues';
import type { WeightWindow } from './weight';

export interface SimContext {
  market: SimMarket;
  faults: Faults;
  weights: Record<SimVenue, WeightWindow>;
}

/** One REST answer, and what the request log keeps of it. */
export interface Served {
  status: number;
  headers: Record<string, string>;
  body: string;
  kind: string;
  weight: number;
  params: Record<string, unknown>;
}

export type Answer = Pick<Served, 'status' | 'headers' | 'body'>;

export const jsonAnswer = (status: number, value: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});

export const textAnswer = (status: number, text: string, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  body: text,
});

export const retryAfter = (secs: number | undefined): Record<string, string> => (secs === undefined ? {} : { 'retry-after': String(secs) });
