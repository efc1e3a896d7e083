// Command-line parsing for `npm run demo` (pure, unit tested).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseDuration } from '@capi/manager';

export const USAGE = `usage: npm run demo -- [--kubeconfig PATH | --embedded] [--cluster NAME] [--namespace NS] [--timeout DURATION] [--fast] [--keep]
Creates a Cluster (KubeadmControlPlane x3 + MachineDeployment x3 on the in-memory provider) on the manager's API server,
then bumps the Kubernetes version (updated in place by the reference updater) and then the VM image (Machines replaced),
printing every Machine's progress live and a summary, then deletes the Cluster and waits until all of it is gone. Exit
code 0 only if every Machine was updated in place by the first change, replaced by the second, all Machine conditions
are healthy at the end, and the deletion finished.
  --kubeconfig PATH   the manager's API server (default: the embedded default's .capi/kubeconfig in the current directory)
  --embedded          start the whole embedded manager in-process instead (nothing kept on disk)
  --fast              with --embedded: short provisioning delay and update duration
  --cluster NAME      Cluster name (default demo); --namespace NS (default default)
  --timeout DURATION  how long each phase may take to settle (default 10m)
  --keep              leave the Cluster in place at the end (to look around) instead of deleting it`;

export class UsageError extends Error {}

export interface DemoArgs {
  kubeconfig: string;
  embedded: boolean;
  fast: boolean;
  cluster?: string;
  namespace?: string;
  phaseTimeoutMs: number;
  keep: boolean;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/;

/** Returns undefined when help was requested. */
export function parseDemoArgs(argv: string[], cwd: string): DemoArgs | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        kubeconfig: { type: 'string' },
        embedded: { type: 'boolean' },
        fast: { type: 'boolean' },
        keep: { type: 'boolean' },
        cluster: { type: 'string' },
        namespace: { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return undefined;
  if (values.embedded && values.kubeconfig) throw new UsageError('--kubeconfig and --embedded are mutually exclusive');
  if (values.fast && !values.embedded)
    throw new UsageError('--fast only applies with --embedded (the timings belong to the manager)');
  for (const f of ['cluster', 'namespace'] as const) {
    const v = values[f];
    if (v !== undefined && !DNS_LABEL.test(v))
      throw new UsageError(`--${f} must be a lowercase DNS label of at most 40 characters, got "${v}"`);
  }
  const timeout = values.timeout ?? '10m';
  const phaseTimeoutMs = parseDuration(timeout);
  if (!phaseTimeoutMs)
    throw new UsageError(`--timeout must be a positive duration such as 90s or 10m, got "${timeout}"`);
  return {
    kubeconfig: values.kubeconfig ?? join(cwd, '.capi', 'kubeconfig'),
    embedded: values.embedded === true,
    fast: values.fast === true,
    cluster: values.cluster,
    namespace: values.namespace,
    phaseTimeoutMs,
    keep: values.keep === true,
  };
}
