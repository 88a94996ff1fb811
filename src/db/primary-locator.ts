/**
 * Which host of a (multi-host) connection URL new connections go to: the hosts are tried in
 * order, as libpq does: with `target_session_attrs=read-write` the one whose sessions are
 * read-write by default (a promoted node may refuse writes for a while), with `primary` the one
 * not in recovery. A failed connection or statement makes the pool suspect its host and look again, so
 * after a failover the service finds the promoted node by itself (docs/ARCHITECTURE.md).
 */
import pg from 'pg';
import { needsLocating, type ConnectionTarget, type HostConfig } from './connection-url';

/** The least time between two searches (a burst of failures searches once). */
const SEARCH_SPACING_MS = 250;

export class PrimaryLocator {
  private chosen: { host: HostConfig; config: pg.ClientConfig };
  private searching: Promise<void> | null = null;
  private lastSearch = 0;
  private readonly listeners: Array<(host: string) => void> = [];

  constructor(
    private readonly target: ConnectionTarget,
    private readonly connectTimeoutMs: number,
  ) {
    const first = target.hosts[0];
    this.chosen = { host: first, config: first.attempts[0] };
  }

  /** Whether there is anything to choose: several hosts, a writable one asked for, or sslmode prefer/allow. */
  get locates(): boolean {
    return needsLocating(this.target);
  }

  /** Whether connections must be on a writable node (checked on every new connection). */
  get needsWritable(): boolean {
    return this.target.targetSessionAttrs !== 'any';
  }

  /** The config of the host new connections go to now. */
  config(): pg.ClientConfig {
    return this.chosen.config;
  }

  /** `host:port` of the chosen host. */
  get host(): string {
    return this.chosen.host.name;
  }

  /** Called with the new host whenever the chosen host changes (a failover). */
  onChange(listener: (host: string) => void): void {
    this.listeners.push(listener);
  }

  /** Look for the host again, soon and once however many failures ask for it. */
  suspect(): void {
    if (!this.locates || this.searching || Date.now() - this.lastSearch < SEARCH_SPACING_MS) return;
    void this.search();
  }

  /** Try the hosts in order; the first that suits becomes the chosen one. Never rejects. */
  search(): Promise<void> {
    this.searching ??= (async () => {
      try {
        for (const host of this.target.hosts) {
          const config = await this.suitable(host);
          if (!config) continue;
          const changed = host !== this.chosen.host;
          this.chosen = { host, config };
          if (changed) for (const l of this.listeners) l(host.name);
          return;
        }
      } finally {
        this.lastSearch = Date.now();
        this.searching = null;
      }
    })();
    return this.searching;
  }

  /** Throw when a new connection landed where writes are refused (a demoted primary, a standby). */
  async verify(client: pg.ClientBase): Promise<void> {
    if (!this.needsWritable) return;
    if (!(await this.suits(client))) {
      this.suspect();
      throw Object.assign(new Error(`${this.host} does not accept writes (not the primary, or not yet)`), { code: '25006' });
    }
  }

  /** libpq's test: read-write is `transaction_read_only` off; primary is not in recovery. */
  private async suits(client: pg.ClientBase): Promise<boolean> {
    const sql = this.target.targetSessionAttrs === 'primary' ? 'SELECT NOT pg_is_in_recovery() AS ok' : "SELECT current_setting('transaction_read_only') = 'off' AS ok";
    const { rows } = await client.query<{ ok: boolean }>(sql);
    return rows[0].ok;
  }

  /** The first config of `host` that connects and, when asked, is writable; null otherwise. */
  private async suitable(host: HostConfig): Promise<pg.ClientConfig | null> {
    for (const config of host.attempts) {
      const client = new pg.Client({ ...config, connectionTimeoutMillis: this.connectTimeoutMs });
      client.on('error', () => undefined);
      try {
        await client.connect();
        if (!this.needsWritable || (await this.suits(client))) return config;
        return null;
      } catch {
        // Unreachable with this config: the next one (plain after encrypted, for sslmode=prefer), or the next host.
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    return null;
  }
}
