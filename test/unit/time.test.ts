import { formatTimestamp, parseTimestamp } from '../../src/domain/time';

describe('parseTimestamp', () => {
  it.each([
    ['1704067200000', Date.UTC(2024, 0, 1)],
    ['0', 0],
    ['2024-01-01', Date.UTC(2024, 0, 1)],
    ['2024-01-01T00:00:00Z', Date.UTC(2024, 0, 1)],
    ['2024-01-01T12:34:56.789Z', Date.UTC(2024, 0, 1, 12, 34, 56, 789)],
    ['2024-01-01T12:34', Date.UTC(2024, 0, 1, 12, 34)],
    ['2024-01-01T12:34:56', Date.UTC(2024, 0, 1, 12, 34, 56)],
    ['2024-01-01T02:00:00+02:00', Date.UTC(2024, 0, 1)],
    ['2023-12-31T19:00:00-05:00', Date.UTC(2024, 0, 1)],
    ['2024-01-01T00:00:00+0000', Date.UTC(2024, 0, 1)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    // A `+` decoded as a space (an unencoded next_start in a URL)
    ['2024-01-01T02:00:00 02:00', Date.UTC(2024, 0, 1)],
    ['2024-01-01T00:00:00 00:00', Date.UTC(2024, 0, 1)],
    ['2024-01-01 00:00:00 0000', Date.UTC(2024, 0, 1)],
  ])('when given %s, then it is %d ms', (input, ms) => {
    expect(parseTimestamp(input)).toBe(ms);
  });

  it.each(['', 'yesterday', '2024-02-30', '2023-02-29', '2024-13-01', '2024-01-01T24:00:00Z', '2024-01-01T00:60Z', '1e12', '-5', '2024-1-1', '12345678901234567', '2024-01-01T00:00:00  00:00', '2024-01-01 02:00:00 2'])(
    'when given "%s", then it is invalid (null)',
    (input) => {
      expect(parseTimestamp(input)).toBeNull();
    },
  );
});

describe('formatTimestamp', () => {
  it('renders seconds precision with an explicit +00:00 offset', () => {
    expect(formatTimestamp(Date.UTC(2024, 0, 1, 4, 5, 6, 789))).toBe('2024-01-01T04:05:06+00:00');
  });

  it('when instants come in any order across days, then each agrees with toISOString (the kept day never leaks)', () => {
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + '+00:00';
    const samples = [0, 999, 86_399_999, 86_400_000, Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(2024, 2, 1), Date.UTC(9999, 11, 31, 23, 59, 59)];
    let seed = 11;
    for (let i = 0; i < 5_000; i++) samples.push((seed = (seed * 48271) % 2147483647) * 97_003 + (i % 3) * 86_400_000);
    for (const ms of [...samples, ...samples.reverse()]) expect(formatTimestamp(ms)).toBe(iso(ms));
  });

  it('when the instant is before 1970, then it renders as toISOString does', () => {
    expect(formatTimestamp(Date.UTC(1969, 11, 31, 23, 59, 59, 500))).toBe('1969-12-31T23:59:59+00:00');
  });
});
