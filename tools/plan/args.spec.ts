import { parsePlanArgs, UsageError } from './args';

describe('parsePlanArgs', () => {
  it('parses a RollingUpdate scenario with defaults', () => {
    expect(parsePlanArgs(['--replicas', '3', '--max-surge', '0', '--max-unavailable', '1', '--in-place'])).toEqual({
      name: undefined,
      strategy: 'RollingUpdate',
      replicas: 3,
      maxSurge: 0,
      maxUnavailable: 1,
      inPlace: true,
      randomSeed: undefined,
      maxIterations: undefined,
    });
    expect(parsePlanArgs(['--replicas', '2'])).toMatchObject({ maxSurge: 1, maxUnavailable: 0, inPlace: false });
  });

  it('parses an OnDelete scenario with a random seed', () => {
    expect(
      parsePlanArgs(['--replicas', '6', '--strategy', 'OnDelete', '--max-user-unavailable', '2', '--random-seed', '0']),
    ).toMatchObject({
      strategy: 'OnDelete',
      replicas: 6,
      maxUserUnavailable: 2,
      randomSeed: 0,
    });
  });

  it('returns undefined for --help', () => {
    expect(parsePlanArgs(['--help'])).toBeUndefined();
  });

  it.each([
    [[], /--replicas is required/],
    [['--replicas', 'three'], /must be an integer/],
    [['--replicas=-1'], /must be >= 0/],
    [['--replicas', '3', '--max-surge', '0', '--max-unavailable', '0'], /cannot both be 0/],
    [['--replicas', '3', '--strategy', 'Recreate'], /--strategy must be/],
    [['--replicas', '3', '--strategy', 'OnDelete', '--in-place'], /only apply to RollingUpdate/],
    [['--replicas', '3', '--max-user-unavailable', '1'], /only applies to OnDelete/],
    [['--replicas', '3', '--bogus'], /Unknown option/],
  ])('rejects %p', (argv, message) => {
    expect(() => parsePlanArgs(argv as string[])).toThrow(UsageError);
    expect(() => parsePlanArgs(argv as string[])).toThrow(message as RegExp);
  });
});
