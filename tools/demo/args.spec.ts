import { UsageError, parseDemoArgs } from './args';

describe('parseDemoArgs', () => {
  it('defaults to the embedded default kubeconfig under the working directory and a 10 minute phase timeout', () => {
    expect(parseDemoArgs([], '/repo')).toEqual({
      kubeconfig: '/repo/.capi/kubeconfig',
      embedded: false,
      fast: false,
      cluster: undefined,
      namespace: undefined,
      phaseTimeoutMs: 600_000,
      keep: false,
    });
  });

  it('reads every flag', () => {
    expect(
      parseDemoArgs(
        ['--embedded', '--fast', '--keep', '--cluster', 'c2', '--namespace=team-a', '--timeout=90s'],
        '/repo',
      ),
    ).toMatchObject({
      keep: true,
      embedded: true,
      fast: true,
      cluster: 'c2',
      namespace: 'team-a',
      phaseTimeoutMs: 90_000,
    });
    expect(parseDemoArgs(['--kubeconfig', '/k'], '/repo')?.kubeconfig).toBe('/k');
  });

  it('returns undefined for --help', () => {
    expect(parseDemoArgs(['-h'], '/repo')).toBeUndefined();
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--embedded', '--kubeconfig=/k'], /mutually exclusive/],
    [['--fast'], /--fast only applies with --embedded/],
    [['--cluster=Demo_1'], /--cluster must be a lowercase DNS label/],
    [['--timeout=soon'], /--timeout must be a positive duration/],
    [['--timeout=0'], /--timeout must be a positive duration/],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseDemoArgs(argv, '/repo')).toThrow(UsageError);
    expect(() => parseDemoArgs(argv, '/repo')).toThrow(message);
  });
});
