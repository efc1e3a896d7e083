import { DEFAULT_STALL_TIMEOUT_MS, parseCliArgs, UsageError } from './args';

describe('parseCliArgs', () => {
  it('parses the three commands with the kubectl-style global flags anywhere', () => {
    expect(parseCliArgs(['--kubeconfig', 'k', 'describe', 'cluster', 'c1', '-n', 'ns', '-o', 'json'])).toEqual({
      global: { kubeconfig: 'k', context: undefined, namespace: 'ns' },
      cmd: { command: 'describe-cluster', name: 'c1', output: 'json' },
    });
    expect(parseCliArgs(['rollout', 'status', 'KCP', 'cp', '--timeout', '10m', '--context', 'x'])).toMatchObject({
      global: { context: 'x' },
      cmd: {
        command: 'rollout-status',
        kind: 'KubeadmControlPlane',
        name: 'cp',
        timeoutMs: 600_000,
        stallTimeoutMs: DEFAULT_STALL_TIMEOUT_MS,
      },
    });
    expect(parseCliArgs(['rollout', 'plan', '-f', 'x.yaml'])).toMatchObject({
      cmd: { command: 'rollout-plan', file: 'x.yaml' },
    });
    expect(parseCliArgs(['-h'])).toEqual({ help: true });
  });

  it.each([
    [[], 'no command given'],
    [['get', 'clusters'], 'unknown command "get clusters"'],
    [['describe', 'cluster'], '"describe cluster" takes one Cluster name'],
    [['describe', 'cluster', 'c', '-o', 'yaml'], '--output must be text or json, not "yaml"'],
    [['describe', 'cluster', 'c', '--timeout', '1m'], '--timeout does not apply to "describe cluster"'],
    [['rollout', 'status', 'ms', 'x'], 'unknown kind "ms": use md (MachineDeployment) or kcp (KubeadmControlPlane)'],
    [
      ['rollout', 'status', 'md', 'x', '--stall-timeout', 'soon'],
      '--stall-timeout: "soon" is not a positive duration (e.g. 30s, 5m, 1h)',
    ],
    [['rollout', 'plan'], '"rollout plan" needs -f FILE'],
    [['describe', 'cluster', 'c', '--bogus'], "Unknown option '--bogus'"],
  ])('%j is a usage error: %s', (argv, message) => {
    expect(() => parseCliArgs(argv as string[])).toThrow(UsageError);
    expect(() => parseCliArgs(argv as string[])).toThrow(message);
  });
});
