/**
 * API keys: `qp_` + 32 random bytes (base64url). Only the SHA-256 hex of a key is stored,
 * beside a hint, the owner, tier, label and lifecycle times; the key itself is shown once.
 */
import { createHash } from 'node:crypto';
import type { Tier } from './tiers';

export const KEY_PREFIX = 'qp_';

/** A key's SHA-256 in hex: how a key is named for revocation. */
export const KEY_HASH_RE = /^[0-9a-f]{64}$/;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A key's hint: the prefix and the first 6 characters of its random part, then an ellipsis. */
export function keyHint(secret: string): string {
  return `${KEY_PREFIX}${secret.slice(0, 6)}…`;
}

/** A key hash as given on revocation, normalized; null when it cannot be one. */
export function normalizeKeyHash(text: string): string | null {
  const hash = text.trim().toLowerCase();
  return KEY_HASH_RE.test(hash) ? hash : null;
}

/** A key as listed to its user (never the key itself). */
export interface ApiKeyInfo {
  keyHash: string;
  keyHint: string;
  userId: string;
  tier: Tier;
  label: string | null;
  createdAt: string;
  status: 'active' | 'revoked';
  revokedAt: string | null;
}

/** A key just created: the only time the key itself is shown. */
export interface NewApiKey {
  key: string;
  keyHint: string;
  userId: string;
  tier: Tier;
  label: string | null;
  createdAt: string;
}

export interface KeyRevocation {
  keyHash: string;
  status: 'revoked';
  revokedAt: string;
}

/** A key to create, validated (the REST body and the CLI options parse into it). */
export interface NewKey {
  userId: string;
  tier: Tier;
  label: string | null;
}
