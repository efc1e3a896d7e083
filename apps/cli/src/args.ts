// Command line of `capi-inplace`: kubectl-style global flags, then one of three commands.
import { parseArgs } from 'node:util';
import { parseDuration } from '@capi/apimachinery';

export const USAGE = `usage: capi-inplace [--kubeconfig PATH] [--context NAME] [-n NAMESPACE] COMMAND

commands:
  describe cluster NAME [-o text|json]
      the Cluster's objects as clusterctl describe cluster shows them, with each Machine's in-place state
  rollout status md|kcp NAME [--timeout DURATION] [--stall-timeout DURATION]
      follows a MachineDeployment or KubeadmControlPlane rollout until it is done (exit 0), stalls (no progress for
      --stall-timeout, default 5m: exit 1 with the blocking conditions) or --timeout passes (exit 1)
  rollout plan -f FILE
      what applying FILE (a changed MachineDeployment) would do: per Machine in place or replaced, and the steps;
      writes nothing

flags:
  --kubeconfig PATH     kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)
  --context NAME        kubeconfig context (default: the current context)
  -n, --namespace NS    namespace (default: the context's, else "default")
  -h, --help            this help

exit codes: 0 success, 1 error (one "error:" line), 2 bad command line`;

export class UsageError extends Error {}

export interface Global {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

export type Command =
  | { command: 'describe-cluster'; name: string; output: 'text' | 'json' }
  | {
      command: 'rollout-status';
      kind: 'MachineDeployment' | 'KubeadmControlPlane';
      name: string;
      timeoutMs?: number;
      stallTimeoutMs: number;
    }
  | { command: 'rollout-plan'; file: string };

export type ParsedArgs = { help: true } | ({ help?: false; global: Global } & { cmd: Command });

const KINDS: Record<string, 'MachineDeployment' | 'KubeadmControlPlane'> = {
  md: 'MachineDeployment',
  machinedeployment: 'MachineDeployment',
  machinedeployments: 'MachineDeployment',
  kcp: 'KubeadmControlPlane',
  kubeadmcontrolplane: 'KubeadmControlPlane',
  kubeadmcontrolplanes: 'KubeadmControlPlane',
};

export const DEFAULT_STALL_TIMEOUT_MS = 5 * 60_000;

function duration(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0)
    throw new UsageError(`--${flag}: "${value}" is not a positive duration (e.g. 30s, 5m, 1h)`);
  return ms;
}

/** Parses argv (without node and the script); throws UsageError on anything it does not accept. */
export function parseCliArgs(argv: string[]): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string', short: 'n' },
        output: { type: 'string', short: 'o' },
        timeout: { type: 'string' },
        'stall-timeout': { type: 'string' },
        filename: { type: 'string', short: 'f' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values: v, positionals: p } = parsed;
  if (v.help) return { help: true };
  const global: Global = { kubeconfig: v.kubeconfig, context: v.context, namespace: v.namespace };
  const only = (allowed: string[]) => {
    const given = (['output', 'timeout', 'stall-timeout', 'filename'] as const).filter((k) => v[k] !== undefined);
    const extra = given.filter((k) => !allowed.includes(k));
    if (extra.length) throw new UsageError(`--${extra[0]} does not apply to "${p.slice(0, 2).join(' ')}"`);
  };
  const arity = (n: number, what: string) => {
    if (p.length !== n) throw new UsageError(`"${p.slice(0, 2).join(' ')}" takes ${what}`);
  };
  const [verb, sub] = p;
  if (verb === 'describe' && sub === 'cluster') {
    only(['output']);
    arity(3, 'one Cluster name');
    const output = v.output ?? 'text';
    if (output !== 'text' && output !== 'json') throw new UsageError(`--output must be text or json, not "${output}"`);
    return { global, cmd: { command: 'describe-cluster', name: p[2], output } };
  }
  if (verb === 'rollout' && sub === 'status') {
    only(['timeout', 'stall-timeout']);
    arity(4, 'a kind (md or kcp) and a name');
    const kind = KINDS[p[2].toLowerCase()];
    if (!kind) throw new UsageError(`unknown kind "${p[2]}": use md (MachineDeployment) or kcp (KubeadmControlPlane)`);
    return {
      global,
      cmd: {
        command: 'rollout-status',
        kind,
        name: p[3],
        timeoutMs: duration('timeout', v.timeout),
        stallTimeoutMs: duration('stall-timeout', v['stall-timeout']) ?? DEFAULT_STALL_TIMEOUT_MS,
      },
    };
  }
  if (verb === 'rollout' && sub === 'plan') {
    only(['filename']);
    arity(2, 'no arguments besides -f FILE');
    if (!v.filename) throw new UsageError('"rollout plan" needs -f FILE');
    return { global, cmd: { command: 'rollout-plan', file: v.filename } };
  }
  if (p.length === 0) throw new UsageError('no command given');
  throw new UsageError(`unknown command "${p.slice(0, 2).join(' ')}"`);
}
