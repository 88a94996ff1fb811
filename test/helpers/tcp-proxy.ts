/**
 * A TCP proxy in front of a real server (the machine's PostgreSQL), so fault tests can make the
 * database "fail" without touching the shared server. It forwards at first; `cut()` destroys every
 * connection and stops listening (a crashed server); `blackhole()` keeps connections open and
 * accepts new ones but forwards nothing (a partition: no RST, no FIN); `restore()` forwards again,
 * held connections resuming where they stopped and those accepted meanwhile connected then.
 * `sendToClients` writes to clients as if the server had (a push the server never sent).
 */
import net from 'node:net';

export type ProxyMode = 'forward' | 'cut' | 'blackhole';

export interface TcpProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  /** Connections currently open from clients (for checking nothing is left hanging); with `sent`, those whose client sent such text. */
  openConnections(sent?: (text: string) => boolean): number;
  /** Write `bytes` to every forwarded client whose text so far passes `sent`; how many were written to. */
  sendToClients(bytes: string, sent: (text: string) => boolean): number;
  cut(): Promise<void>;
  blackhole(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
  /** The first bytes the client sent, as text. */
  sent: string;
}

/** Enough of a conversation's start to recognise it. */
const SENT_KEPT = 4_096;

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const pairs = new Set<Pair>();
  let port = 0;

  const destroy = (p: Pair) => {
    p.client.destroy();
    p.upstream?.destroy();
    pairs.delete(p);
  };

  /** Wire a client to the target: data flows only while the mode is 'forward'. */
  const connectUpstream = (p: Pair) => {
    const up = net.connect(targetPort, targetHost);
    p.upstream = up;
    up.on('error', () => destroy(p));
    up.on('close', () => destroy(p));
    p.client.pipe(up);
    up.pipe(p.client);
  };

  const onConnection = (client: net.Socket) => {
    const p: Pair = { client, sent: '' };
    pairs.add(p);
    client.on('data', (chunk: Buffer) => {
      if (p.sent.length < SENT_KEPT) p.sent += chunk.toString('latin1');
    });
    client.on('error', () => destroy(p));
    client.on('close', () => destroy(p));
    if (mode === 'forward') connectUpstream(p);
    else client.pause(); // blackhole: accepted, never answered (until restore)
  };

  const server = net.createServer(onConnection);
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const stopListening = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));

  await listen();

  return {
    get port() {
      return port;
    },
    get mode() {
      return mode;
    },
    urlFor(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    openConnections: (sent) => [...pairs].filter((p) => !sent || sent(p.sent)).length,
    sendToClients(bytes, sent) {
      const to = [...pairs].filter((p) => p.upstream && mode === 'forward' && sent(p.sent));
      for (const p of to) p.client.write(bytes);
      return to.length;
    },
    async cut() {
      mode = 'cut';
      const closed = stopListening();
      for (const p of [...pairs]) destroy(p);
      await closed;
    },
    blackhole() {
      mode = 'blackhole';
      for (const p of pairs) {
        // Stop both directions: unread bytes stay in the socket buffers, so a restore resumes
        // the conversation intact.
        p.client.unpipe();
        p.upstream?.unpipe();
        p.client.pause();
        p.upstream?.pause();
      }
    },
    async restore() {
      const was = mode;
      mode = 'forward';
      if (was === 'cut') {
        await listen();
        return;
      }
      for (const p of pairs) {
        if (!p.upstream) {
          connectUpstream(p);
          continue;
        }
        p.client.pipe(p.upstream);
        p.upstream.pipe(p.client);
      }
    },
    async close() {
      mode = 'cut';
      const closed = stopListening();
      for (const p of [...pairs]) destroy(p);
      await closed;
    },
  };
}

/** A proxy in front of the server named by a postgres:// URL. */
export async function proxyFor(url: string): Promise<TcpProxy> {
  const u = new URL(url);
  return startTcpProxy(u.hostname || '127.0.0.1', Number(u.port || 5432));
}
