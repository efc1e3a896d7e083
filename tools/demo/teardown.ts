// The demo's last step: `kubectl delete cluster` and wait until the Cluster and everything it owned is gone (the
// Cluster controller deletes workers, then the control plane, then the infrastructure cluster, then lets it go).
import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL, CONTROLPLANE_API_VERSION } from '@capi/api';
import { isNotFound, type Client } from '@capi/controller-runtime';
import { INMEMORY_API_VERSION } from '@capi/inmemory';

/** The kinds whose objects of the cluster (by its cluster-name label) must be gone, in the order they go. */
export const TEARDOWN_KINDS: readonly (readonly [apiVersion: string, kind: string])[] = [
  [CLUSTER_API_VERSION, 'MachineDeployment'],
  [CLUSTER_API_VERSION, 'MachineSet'],
  [CLUSTER_API_VERSION, 'Machine'],
  [CONTROLPLANE_API_VERSION, 'KubeadmControlPlane'],
  [INMEMORY_API_VERSION, 'InMemoryMachine'],
  [INMEMORY_API_VERSION, 'InMemoryCluster'],
  [CLUSTER_API_VERSION, 'Cluster'],
];

/** What is left, per kind: e.g. "Machine x3, KubeadmControlPlane x1"; empty when everything is gone. */
export function leftoverLine(counts: readonly { kind: string; count: number }[]): string {
  return counts
    .filter((c) => c.count > 0)
    .map((c) => `${c.kind} x${c.count}`)
    .join(', ');
}

export class TeardownError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TeardownError';
  }
}

/** Demo lines stay within 120 columns. */
export const cut = (line: string): string => (line.length > 120 ? `${line.slice(0, 119)}…` : line);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Deletes the Cluster and waits until nothing of it is left, printing a line each time what is left changes; a
 * TeardownError naming the leftovers after `timeoutMs`.
 */
export async function deleteClusterAndWait(opts: {
  client: Client;
  namespace: string;
  cluster: string;
  timeoutMs: number;
  pollMs: number;
  out: (line: string) => void;
  elapsed: () => string;
}): Promise<void> {
  const { client, namespace, cluster } = opts;
  const clusterRef = { apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', namespace, name: cluster };
  try {
    await client.delete(clusterRef);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  const started = Date.now();
  const deadline = started + opts.timeoutMs;
  let last: string | undefined;
  for (;;) {
    const counts = await Promise.all(
      TEARDOWN_KINDS.map(async ([apiVersion, kind]) => {
        if (kind === 'Cluster') return { kind, count: (await client.tryGet(clusterRef)) ? 1 : 0 };
        const list = await client.list(apiVersion, kind, {
          namespace,
          labelSelector: `${CLUSTER_NAME_LABEL}=${cluster}`,
        });
        return { kind, count: list.items.length };
      }),
    );
    const line = leftoverLine(counts);
    if (!line) {
      opts.out(`-- deletion: everything gone after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return;
    }
    if (line !== last) opts.out(cut(`${opts.elapsed().padStart(7)} deleting: left ${line}`));
    last = line;
    if (Date.now() > deadline)
      throw new TeardownError(
        `Cluster ${namespace}/${cluster} was not deleted within ${opts.timeoutMs / 1000} s: left ${line}`,
      );
    await sleep(opts.pollMs);
  }
}
