/** Where Redis is: REDIS_URL, REDIS_SENTINELS and their companions, and the ioredis options every client is built from. */
import { loadConfig } from '../../src/config';
import { DependencyState, type DependencyEvent } from '../../src/domain/dependency-state';
import { RedisClients, isReadOnlyError, redisOptions } from '../../src/services/runtime/redis-clients';

describe('Redis configuration', () => {
  it('when only REDIS_URL is set, then that server is the target and no sentinel is asked', () => {
    expect(loadConfig({ REDIS_URL: 'redis://cache:6380/2' }).redis).toEqual({ url: 'redis://cache:6380/2', sentinels: [], sentinelMaster: 'mymaster', sentinelPassword: undefined });
    expect(loadConfig({}).redis).toBeUndefined();
  });

  it('when REDIS_SENTINELS is set, then each host:port is kept, a bare host gets the sentinel port, and blanks are dropped', () => {
    const c = loadConfig({ REDIS_SENTINELS: ' 10.0.0.5:26379, sentinel-b:26380,,[::1]:5000, sentinel-c ', REDIS_SENTINEL_MASTER: 'quotas', REDIS_SENTINEL_PASSWORD: 's3cret' });
    expect(c.redis).toEqual({
      url: undefined,
      sentinels: [
        { host: '10.0.0.5', port: 26379 },
        { host: 'sentinel-b', port: 26380 },
        { host: '::1', port: 5000 },
        { host: 'sentinel-c', port: 26379 },
      ],
      sentinelMaster: 'quotas',
      sentinelPassword: 's3cret',
    });
  });

  it('when REDIS_SENTINELS and REDIS_URL are both set, then the sentinels find the master and the URL stays for its credentials', () => {
    const c = loadConfig({ REDIS_URL: 'rediss://:pw@ignored:6379/3', REDIS_SENTINELS: 'a:1,b:2' });
    expect(c.redis).toMatchObject({ url: 'rediss://:pw@ignored:6379/3', sentinels: [{ host: 'a', port: 1 }, { host: 'b', port: 2 }], sentinelMaster: 'mymaster' });
  });

  it.each([
    [{ REDIS_SENTINELS: 'a:0' }, /REDIS_SENTINELS: a:0: must be host:port/],
    [{ REDIS_SENTINELS: 'a:70000' }, /REDIS_SENTINELS: a:70000: must be host:port/],
    [{ REDIS_SENTINELS: 'a:port' }, /REDIS_SENTINELS: a:port: must be host:port/],
    [{ REDIS_SENTINELS: 'redis://a:26379' }, /REDIS_SENTINELS: redis:\/\/a:26379: must be host:port/],
    [{ REDIS_SENTINELS: 'a:1, a:1' }, /REDIS_SENTINELS: lists one sentinel twice/],
    [{ REDIS_SENTINELS: ', ,' }, /REDIS_SENTINELS: lists no sentinel/],
    [{ REDIS_SENTINEL_MASTER: 'other' }, /REDIS_SENTINEL_MASTER: needs REDIS_SENTINELS/],
    [{ REDIS_SENTINEL_PASSWORD: 'pw', REDIS_URL: 'redis://x:6379' }, /REDIS_SENTINEL_PASSWORD: needs REDIS_SENTINELS/],
    [{ REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_MASTER: 'my master' }, /REDIS_SENTINEL_MASTER: must be a master name/],
  ])('when %j, then start-up stops naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('ioredis options', () => {
  const target = { sentinels: [], sentinelMaster: 'mymaster' };

  it('when only a URL is configured, then the options hold no sentinel and the tuning wins over the shared values', () => {
    const o = redisOptions({ ...target, url: 'redis://x:6379' }, { connectTimeout: 5 });
    expect(o.connectTimeout).toBe(5);
    expect(o).not.toHaveProperty('sentinels');
    expect(o.retryStrategy!(1)).toBe(100);
    expect(o.retryStrategy!(50)).toBe(1_000);
  });

  it('when sentinels are configured, then ioredis gets them, the master name and the sentinel password; TLS only with rediss:', () => {
    const sentinels = [{ host: 'a', port: 1 }];
    const plain = redisOptions({ sentinels, sentinelMaster: 'quotas', sentinelPassword: 'pw', url: 'redis://:x@h:6379/1' });
    expect(plain).toMatchObject({ sentinels, name: 'quotas', sentinelPassword: 'pw', failoverDetector: true, enableTLSForSentinelMode: false, sentinelTLS: undefined });
    const tls = redisOptions({ sentinels, sentinelMaster: 'quotas', url: 'rediss://h:6379' });
    expect(tls).toMatchObject({ enableTLSForSentinelMode: true, sentinelTLS: {} });
  });

  it('when a call meets READONLY (a demoted master), then the client reconnects; other errors do not', () => {
    const o = redisOptions({ ...target, sentinels: [{ host: 'a', port: 1 }] });
    const readOnly = new Error("READONLY You can't write against a read only replica.");
    expect(o.reconnectOnError!(readOnly)).toBe(true);
    expect(isReadOnlyError(readOnly)).toBe(true);
    expect(o.reconnectOnError!(new Error('ERR wrong number of arguments'))).toBe(false);
  });

  it('when a client is built through sentinels with REDIS_URL, then the password and database come from the URL', async () => {
    const clients = new RedisClients(loadConfig({ REDIS_URL: 'redis://user:p%40ss@ignored:6379/4', REDIS_SENTINELS: '127.0.0.1:1', REDIS_SENTINEL_PASSWORD: 'spw' }).redis!);
    const client = clients.connect({ lazyConnect: true });
    expect(client.options).toMatchObject({ username: 'user', password: 'p@ss', db: 4, name: 'mymaster', sentinelPassword: 'spw', sentinels: [{ host: '127.0.0.1', port: 1 }] });
    await clients.close(client);
  });
});

describe('Redis clients as one dependency', () => {
  it('when two clients fail and only one is back, then the outage is told once and ends only when both are ready', async () => {
    const events: DependencyEvent[] = [];
    const clients = new RedisClients(loadConfig({ REDIS_URL: 'redis://127.0.0.1:1' }).redis!, new DependencyState('redis', (e) => events.push(e)));
    const a = clients.connect({ lazyConnect: true });
    const b = clients.connect({ lazyConnect: true });
    const setStatus = (c: typeof a, s: string) => Object.defineProperty(c, 'status', { value: s, configurable: true });
    a.emit('error', new Error('connect ECONNREFUSED 127.0.0.1:1'));
    b.emit('error', new Error('connect ECONNREFUSED 127.0.0.1:1'));
    clients.failed(new Error('Stream isn\'t writeable'));
    setStatus(a, 'ready');
    setStatus(b, 'reconnecting');
    a.emit('ready');
    expect(events).toEqual([{ kind: 'down', dependency: 'redis', error: 'connect ECONNREFUSED 127.0.0.1:1' }]);
    setStatus(b, 'ready');
    b.emit('ready');
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ kind: 'up', dependency: 'redis', failures: 3 });
    await clients.close(a);
    await clients.close(b);
  });
});
