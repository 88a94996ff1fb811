/**
 * API keys: `qp_` + 32 random bytes (base64url). Only the SHA-256 hex of a key is stored,
 * beside a hint, the owner, tier, label and lifecycle times; the key itself is shown once.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../db/database';
import { AppError } from '../domain/errors';
import { formatTimestamp } from '../domain/time';
import { TIERS, type Tier } from '../domain/tiers';
import { z } from 'zod';
import type { Principal } from './access/principal';

export const KEY_PREFIX = 'qp_';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_LABEL = 100;

export interface CreateKeyInput {
  user_id: unknown;
  tier: unknown;
  label?: unknown;
}

export interface CreatedKey {
  key: string;
  key_hint: string;
  user_id: string;
  tier: Tier;
  label: string | null;
  created_at: string;
}

export interface ListedKey {
  key_hash: string;
  key_hint: string;
  user_id: string;
  tier: Tier;
  label: string | null;
  created_at: string;
  status: 'active' | 'revoked';
  revoked_at: string | null;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The body of POST /v1/auth/keys: each field's schema checks it, and the document shows them. */
export const CREATE_KEY_FIELDS = {
  user_id: z.string().regex(UUID_RE).meta({ description: 'Owner (UUID).', examples: ['7c0e4d1a-3f5b-4c2e-9a8d-1b2c3d4e5f60'] }),
  tier: z.enum(TIERS).meta({ description: 'Plan of the new key.' }),
  label: z.string().max(MAX_LABEL).nullable().optional().meta({ description: `Free-form name, at most ${MAX_LABEL} characters.` }),
};
export const CREATE_KEY_BODY = z.object(CREATE_KEY_FIELDS);

const absent = (v: unknown) => v === undefined || v === null || v === '';

export function validateCreateKey(input: CreateKeyInput): { userId: string; tier: Tier; label: string | null } {
  const f = CREATE_KEY_FIELDS;
  if (absent(input.user_id)) throw new AppError('MISSING_PARAMETER', 'user_id is required', { parameter: 'user_id' });
  const userId = f.user_id.safeParse(input.user_id);
  if (!userId.success) throw new AppError('INVALID_PARAMETER', 'user_id must be a UUID', { parameter: 'user_id' });
  if (absent(input.tier)) throw new AppError('MISSING_PARAMETER', 'tier is required (free, pro or scale)', { parameter: 'tier' });
  const tier = f.tier.safeParse(input.tier);
  if (!tier.success) throw new AppError('INVALID_TIER', `tier "${String(input.tier)}" is not one of free, pro, scale`);
  const label = f.label.safeParse(input.label);
  if (!label.success) {
    throw new AppError('INVALID_PARAMETER', `label must be a string of at most ${MAX_LABEL} characters`, { parameter: 'label' });
  }
  return { userId: userId.data.toLowerCase(), tier: tier.data, label: label.data ?? null };
}

export interface RevokedKey {
  key_hash: string;
  status: 'revoked';
  revoked_at: string;
}

const HASH_RE = /^[0-9a-f]{64}$/;

function listed(row: {
  keyHash: string;
  keyHint: string;
  userId: string;
  tier: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}): ListedKey {
  return {
    key_hash: row.keyHash,
    key_hint: row.keyHint,
    user_id: row.userId,
    tier: row.tier as Tier,
    label: row.label,
    created_at: formatTimestamp(row.createdAt.getTime()),
    status: row.revokedAt ? 'revoked' : 'active',
    revoked_at: row.revokedAt ? formatTimestamp(row.revokedAt.getTime()) : null,
  };
}

export class KeysService {
  constructor(
    private readonly db: Database,
    /** Told of every revocation, so this instance forgets the key at once. */
    private readonly onRevoke: (keyHash: string) => void = () => undefined,
  ) {}

  /** The caller's user's keys, oldest first. */
  async list(caller: Principal): Promise<ListedKey[]> {
    const rows = await this.db.prisma.apiKey.findMany({
      where: { userId: caller.userId },
      orderBy: [{ createdAt: 'asc' }, { keyHash: 'asc' }],
    });
    return rows.map(listed);
  }

  /**
   * Revoke a key of the caller's own user. Another user's key is KEY_NOT_FOUND (no leak);
   * revoking again returns the same body.
   */
  async revoke(caller: Principal, keyHash: string): Promise<RevokedKey> {
    const hash = keyHash.trim().toLowerCase();
    const notFound = () => new AppError('KEY_NOT_FOUND', `no key with hash ${keyHash.slice(0, 80)} for this user`);
    if (!HASH_RE.test(hash)) throw notFound();
    const row = await this.db.prisma.apiKey.findUnique({ where: { keyHash: hash } });
    if (!row || row.userId !== caller.userId) throw notFound();
    let revokedAt = row.revokedAt;
    if (!revokedAt) {
      // Conditional, so a concurrent revocation keeps the first time.
      await this.db.prisma.apiKey.updateMany({ where: { keyHash: hash, revokedAt: null }, data: { revokedAt: new Date() } });
      revokedAt = (await this.db.prisma.apiKey.findUniqueOrThrow({ where: { keyHash: hash } })).revokedAt!;
    }
    this.onRevoke(hash);
    return { key_hash: hash, status: 'revoked', revoked_at: formatTimestamp(revokedAt.getTime()) };
  }

  async create(input: CreateKeyInput): Promise<CreatedKey> {
    const { userId, tier, label } = validateCreateKey(input);
    const secret = randomBytes(32).toString('base64url');
    const key = KEY_PREFIX + secret;
    const row = await this.db.prisma.apiKey.create({
      data: { keyHash: hashKey(key), keyHint: `${KEY_PREFIX}${secret.slice(0, 6)}…`, userId, tier, label },
    });
    return {
      key,
      key_hint: row.keyHint,
      user_id: row.userId,
      tier,
      label: row.label,
      created_at: formatTimestamp(row.createdAt.getTime()),
    };
  }
}
