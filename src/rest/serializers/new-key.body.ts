/**
 * The body of POST /v1/auth/keys (and the options of `mds keys create`): its fields, checked
 * one by one in order (user_id, tier, label), into the domain's NewKey. The schemas are also
 * the body the OpenAPI document shows.
 */
import { z } from 'zod';
import type { NewKey } from '../../domain/api-keys';
import { AppError } from '../../domain/errors';
import { TIERS } from '../../domain/tiers';

export const MAX_LABEL = 100;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// eslint-disable-next-line no-control-regex
const CONTROL_FREE = /^[^\u0000-\u001f\u007f]*$/;

/** Untrusted input of key creation: the POST body (the CLI options are read the same way). */
export interface NewKeyBody {
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

/** The tier as the message names it: a JSON object or array is not turned into text (its own `toString` may throw). */
const shownTier = (v: unknown) => (typeof v === 'object' ? 'tier' : `tier "${String(v)}"`);

/** Check key-creation input field by field, in order: user_id, tier, label. */
export function parseNewKeyBody(input: NewKeyBody): NewKey {
  const f = NEW_KEY_FIELDS;
  if (absent(input.user_id)) throw new AppError('MISSING_PARAMETER', 'user_id is required', { parameter: 'user_id' });
  const userId = f.user_id.safeParse(input.user_id);
  if (!userId.success) throw new AppError('INVALID_PARAMETER', 'user_id must be a UUID', { parameter: 'user_id' });
  if (absent(input.tier)) throw new AppError('MISSING_PARAMETER', 'tier is required (free, pro or scale)', { parameter: 'tier' });
  const tier = f.tier.safeParse(input.tier);
  if (!tier.success) throw new AppError('INVALID_TIER', `${shownTier(input.tier)} is not one of free, pro, scale`);
  const label = f.label.safeParse(input.label);
  if (!label.success) {
    const why = typeof input.label === 'string' && !CONTROL_FREE.test(input.label) ? 'label must not contain control characters' : `label must be a string of at most ${MAX_LABEL} characters`;
    throw new AppError('INVALID_PARAMETER', why, { parameter: 'label' });
  }
  return { userId: userId.data.toLowerCase(), tier: tier.data, label: label.data ?? null };
}
