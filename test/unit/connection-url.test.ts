import { needsLocating, parseConnectionUrl } from '../../src/db/connection-url';

describe('libpq connection URLs', () => {
  it('when the URL names one host, then one config as pg would read it, nothing to locate', () => {
    const t = parseConnectionUrl('postgres://app:s%40cret@db.example:6543/market?application_name=mds');
    expect(t.targetSessionAttrs).toBe('any');
    expect(t.hosts).toHaveLength(1);
    expect(t.hosts[0].name).toBe('db.example:6543');
    expect(t.hosts[0].attempts).toEqual([expect.objectContaining({ host: 'db.example', port: '6543', user: 'app', password: 's@cret', database: 'market', application_name: 'mds' })]);
    expect(needsLocating(t)).toBe(false);
  });

  it("when the URL is pg_auto_failover's multi-host form, then every host in order, read-write asked, sslmode prefer tried encrypted then plain", () => {
    const t = parseConnectionUrl('postgres://127.0.0.1:56001,127.0.0.1:56002/postgres?target_session_attrs=read-write&sslmode=prefer');
    expect(t.targetSessionAttrs).toBe('read-write');
    expect(t.hosts.map((h) => h.name)).toEqual(['127.0.0.1:56001', '127.0.0.1:56002']);
    const [encrypted, plain] = t.hosts[1].attempts;
    expect(encrypted).toMatchObject({ host: '127.0.0.1', port: '56002', database: 'postgres', ssl: { rejectUnauthorized: false } });
    expect(plain).toMatchObject({ host: '127.0.0.1', port: '56002', ssl: false });
    expect(needsLocating(t)).toBe(true);
  });

  it('when hosts are IPv6 or lack a port, then each is kept whole; sslmode allow tries plain first, require encrypts without verifying', () => {
    const t = parseConnectionUrl('postgresql://u@[::1]:5433,db2/x?sslmode=allow');
    expect(t.hosts.map((h) => h.name)).toEqual(['::1:5433', 'db2:5432']);
    expect(t.hosts[0].attempts.map((a) => a.ssl)).toEqual([false, { rejectUnauthorized: false }]);
    expect(parseConnectionUrl('postgres://h/x?sslmode=require').hosts[0].attempts).toEqual([expect.objectContaining({ ssl: { rejectUnauthorized: false } })]);
    expect(parseConnectionUrl('postgres://h/x?sslmode=disable').hosts[0].attempts[0].ssl).toBe(false);
  });

  it('when target_session_attrs asks for a standby or the scheme is wrong, then the URL is refused', () => {
    expect(() => parseConnectionUrl('postgres://h1,h2/x?target_session_attrs=standby')).toThrow(/target_session_attrs=standby/);
    expect(() => parseConnectionUrl('mysql://h/x')).toThrow(/postgres/);
  });
});
