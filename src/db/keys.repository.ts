/** API keys as stored: the SHA-256 of each key, never the key itself. */
import type { Tier } from '../domain/tiers';
import type { PrismaClient } from './generated/prisma/client';
import { isConnectionFailure } from './unavailable';

export interface StoredKey {
  keyHash: string;
  keyHint: string;
  userId: string;
  tier: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export class KeysRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findByHash(keyHash: string): Promise<StoredKey | null> {
    return this.prisma.apiKey.findUnique({ where: { keyHash } });
  }

  /** Of these key hashes, the ones revoked (one statement: the open sockets' keys, every half second). */
  async revokedAmong(keyHashes: readonly string[]): Promise<string[]> {
    if (keyHashes.length === 0) return [];
    const rows = await this.prisma.apiKey.findMany({ where: { keyHash: { in: [...keyHashes] }, revokedAt: { not: null } }, select: { keyHash: true } });
    return rows.map((r) => r.keyHash);
  }

  /** Whether any key was ever made (a first start on the embedded database makes one). */
  async any(): Promise<boolean> {
    return (await this.prisma.apiKey.findFirst({ select: { keyHash: true } })) !== null;
  }

  /** The keys of one user, oldest first. */
  listOfUser(userId: string): Promise<StoredKey[]> {
    return this.prisma.apiKey.findMany({ where: { userId }, orderBy: [{ createdAt: 'asc' }, { keyHash: 'asc' }] });
  }

  /**
   * Store a new key. When the connection is lost with the outcome unknown (a failover while the
   * INSERT committed), the key is looked up: found, it was made; not found, the failure stands.
   */
  async create(key: { keyHash: string; keyHint: string; userId: string; tier: Tier; label: string | null }): Promise<StoredKey> {
    try {
      return await this.prisma.apiKey.create({ data: key });
    } catch (err) {
      if (!isConnectionFailure(err)) throw err;
      const made = await this.prisma.apiKey.findUnique({ where: { keyHash: key.keyHash } }).catch(() => null);
      if (made) return made;
      throw err;
    }
  }

  /** Mark the key revoked unless it already is (a concurrent revocation keeps the first time); the time it holds. */
  async revoke(keyHash: string, at: Date): Promise<Date> {
    await this.prisma.apiKey.updateMany({ where: { keyHash, revokedAt: null }, data: { revokedAt: at } });
    return (await this.prisma.apiKey.findUniqueOrThrow({ where: { keyHash } })).revokedAt!;
  }
}
