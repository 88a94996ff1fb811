/**
 * API keys: `qp_` + 32 random bytes (base64url). Only the SHA-256 hex of a key is stored,
 * beside a hint, the owner, tier, label and lifecycle times; the key itself is shown once.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError } from './errors';
import { TIERS, type Tier } from './tiers';

export const KEY_PREFIX = 'qp_';
export const MAX_LABEL = 100;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HASH_RE = /^[0-9a-f]{64}$/;
// eslint-disable-next-line no-control-regex
const CONTROL_FREE = /^[^\u0000-\u001f\u007f]*$/;

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
  return HASH_RE.test(hash) ? hash : null;
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

/** Untrusted input of key creation (the POST body, the CLI options). */
export interface NewKeyInput {
  user_id: unknown;
  tier: unknown;
  label?: unknown;
}

/** The fields of key creation: each schema checks its field, and the document shows them. */
export const NEW_KEY_FIELDS = {
  user_id: z.string().regex(UUID_RE).meta({ description: 'Owner (UUID).', examples: ['7c0e4d1a-3f5b-4c2e-9a8d-1b2c3d4e5f60'] }),
  tier: z.enum(TIERS).meta({ description: 'Plan of the new key.' }),
  label: z
    .string()
    .max(MAX_LABEL)
    // PostgreSQL text cannot hold NUL; no control character belongs in a name.
    .regex(CONTROL_FREE)
    .nullable()
    .optional()
    .meta({ description: `Free-form name, at most ${MAX_LABEL} characters, no control characters.` }),
};
export const NEW_KEY_BODY = z.object(NEW_KEY_FIELDS);

const absent = (v: unknown) => v === undefined || v === null || v === '';

/** Check key-creation input field by field, in order: user_id, tier, label. */
export function parseNewKey(input: NewKeyInput): { userId: string; tier: Tier; label: string | null } {
  const f = NEW_KEY_FIELDS;
  if (absent(input.user_id)) throw new AppError('MISSING_PARAMETER', 'user_id is required', { parameter: 'user_id' });
  const userId = f.user_id.safeParse(input.user_id);
  if (!userId.success) throw new AppError('INVALID_PARAMETER', 'user_id must be a UUID', { parameter: 'user_id' });
  if (absent(input.tier)) throw new AppError('MISSING_PARAMETER', 'tier is required (free, pro or scale)', { parameter: 'tier' });
  const tier = f.tier.safeParse(input.tier);
  if (!tier.success) throw new AppError('INVALID_TIER', `tier "${String(input.tier)}" is not one of free, pro, scale`);
  const label = f.label.safeParse(input.label);
  if (!label.success) {
    const why = typeof input.label === 'string' && !CONTROL_FREE.test(input.label) ? 'label must not contain control characters' : `label must be a string of at most ${MAX_LABEL} characters`;
    throw new AppError('INVALID_PARAMETER', why, { parameter: 'label' });
  }
  return { userId: userId.data.toLowerCase(), tier: tier.data, label: label.data ?? null };
}
