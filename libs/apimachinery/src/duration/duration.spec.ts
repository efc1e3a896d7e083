import { humanDuration, timestampSince } from './duration';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('humanDuration (apimachinery HumanDuration)', () => {
  it.each([
    [-2 * S, '<invalid>'],
    [-1 * S, '0s'],
    [0, '0s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [5 * M + 30 * S, '5m30s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 30 * M, '8h'],
    [47 * H, '47h'],
    [48 * H, '2d'],
    [3 * D + 4 * H, '3d4h'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [800 * D, '2y70d'],
    [8 * 365 * D + 40 * D, '8y'],
  ])('%d ms → %s', (ms, want) => expect(humanDuration(ms)).toBe(want));

  it('timestamps: unset is <unknown>, garbage is <invalid>', () => {
    const now = new Date('2026-01-01T00:10:00Z');
    expect(timestampSince(undefined, now)).toBe('<unknown>');
    expect(timestampSince('', now)).toBe('<unknown>');
    expect(timestampSince('yesterday', now)).toBe('<invalid>');
    expect(timestampSince('2026-01-01T00:04:30Z', now)).toBe('5m30s');
  });
});
