/**
 * API key lifecycle: creation (admin, or the CLI), listing and revocation by the key's own
 * user. The key itself is returned once, at creation; only its SHA-256 is stored.
 */
import { randomBytes } from 'node:crypto';
import type { KeysRepository, StoredKey } from '../../db/keys.repository';
import {
  hashKey,
  KEY_PREFIX,
  keyHint,
  normalizeKeyHash,
  type ApiKeyInfo,
  type KeyRevocation,
  type NewApiKey,
  type NewKey,
} from '../../domain/api-keys';
import { AppError } from '../../domain/errors';
import { formatTimestamp } from '../../domain/time';
import type { Tier } from '../../domain/tiers';
import type { Principal } from './principal';

function info(row: StoredKey): ApiKeyInfo {
  return {
    keyHash: row.keyHash,
    keyHint: row.keyHint,
    userId: row.userId,
    tier: row.tier as Tier,
    label: row.label,
    createdAt: formatTimestamp(row.createdAt.getTime()),
    status: row.revokedAt ? 'revoked' : 'active',
    revokedAt: row.revokedAt ? formatTimestamp(row.revokedAt.getTime()) : null,
  };
}

export class KeysService {
  constructor(
    private readonly keys: KeysRepository,
    /** Told of every revocation, so this instance forgets the key at once. */
    private readonly onRevoke: (keyHash: string) => void = () => undefined,
  ) {}

  /** The caller's user's keys, oldest first. */
  async list(caller: Principal): Promise<ApiKeyInfo[]> {
    return (await this.keys.listOfUser(caller.userId)).map(info);
  }

  /**
   * Revoke a key of the caller's own user. Another user's key is KEY_NOT_FOUND (no leak);
   * revoking again returns the same body.
   */
  async revoke(caller: Principal, keyHash: string): Promise<KeyRevocation> {
    const notFound = () => new AppError('KEY_NOT_FOUND', `no key with hash ${keyHash.slice(0, 80)} for this user`);
    const hash = normalizeKeyHash(keyHash);
    if (hash === null) throw notFound();
    const row = await this.keys.findByHash(hash);
    if (!row || row.userId !== caller.userId) throw notFound();
    const revokedAt = row.revokedAt ?? (await this.keys.revoke(hash, new Date()));
    this.onRevoke(hash);
    return { keyHash: hash, status: 'revoked', revokedAt: formatTimestamp(revokedAt.getTime()) };
  }

  async create({ userId, tier, label }: NewKey): Promise<NewApiKey> {
    const secret = randomBytes(32).toString('base64url');
    const key = KEY_PREFIX + secret;
    const row = await this.keys.create({ keyHash: hashKey(key), keyHint: keyHint(secret), userId, tier, label });
    return { key, keyHint: row.keyHint, userId: row.userId, tier, label: row.label, createdAt: formatTimestamp(row.createdAt.getTime()) };
  }
}
