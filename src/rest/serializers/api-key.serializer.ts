/** API keys over REST: the spec's snake_case fields. */
import { z } from 'zod';
import type { ApiKeyInfo, KeyRevocation, NewApiKey } from '../../domain/api-keys';
import { TIERS } from '../../domain/tiers';
import { restShape, timestamp } from './shape';

const KEY_HINT = z.string().meta({ examples: ['qp_AbC1…'] });

export const NEW_API_KEY = restShape<NewApiKey>({
  key: { from: 'key', schema: z.string().meta({ examples: ['qp_…'] }) },
  key_hint: { from: 'keyHint', schema: KEY_HINT },
  user_id: { from: 'userId', schema: z.string() },
  tier: { from: 'tier', schema: z.enum(TIERS) },
  label: { from: 'label', schema: z.string().nullable() },
  created_at: { from: 'createdAt', schema: timestamp },
});

export const API_KEY_INFO = restShape<ApiKeyInfo>({
  key_hash: { from: 'keyHash', schema: z.string().meta({ description: 'SHA-256 hex of the key; identifies it for revocation.' }) },
  key_hint: { from: 'keyHint', schema: KEY_HINT },
  user_id: { from: 'userId', schema: z.string() },
  tier: { from: 'tier', schema: z.enum(TIERS) },
  label: { from: 'label', schema: z.string().nullable() },
  created_at: { from: 'createdAt', schema: timestamp },
  status: { from: 'status', schema: z.enum(['active', 'revoked']) },
  revoked_at: { from: 'revokedAt', schema: timestamp.nullable() },
});

export const KEY_LIST_SCHEMA = z.object({ keys: z.array(API_KEY_INFO.schema) });

export const KEY_REVOCATION = restShape<KeyRevocation>({
  key_hash: { from: 'keyHash', schema: z.string() },
  status: { from: 'status', schema: z.literal('revoked') },
  revoked_at: { from: 'revokedAt', schema: timestamp },
});
