// Where a simulated etcd cluster keeps its state: in its own workload cluster's API server (as upstream's in-memory
// etcd keeps it on the etcd Pods), so the hosts (written by the InMemoryMachine controller, wherever it runs) and the
// members answering gRPC (in the process serving that API server) share it. One ConfigMap per cluster, updated with
// optimistic concurrency: a member outlives its etcd Pod (see cluster-state.ts), so the Pods cannot hold it.
import type { KubeObject } from '@capi/apimachinery';
import { isAlreadyExists, isConflict, type Client } from '@capi/controller-runtime';
import type { EtcdClusterState } from './cluster-state';

export const ETCD_STATE_NAMESPACE = 'kube-system';
export const ETCD_STATE_CONFIGMAP = 'inmemory-etcd-cluster';
const STATE_KEY = 'cluster';
/** Attempts of one update against concurrent writers. */
const MAX_ATTEMPTS = 10;

const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ETCD_STATE_NAMESPACE, name: ETCD_STATE_CONFIGMAP };

function parse(cm: KubeObject | undefined): EtcdClusterState | undefined {
  const raw = (cm?.data as Record<string, string> | undefined)?.[STATE_KEY];
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as EtcdClusterState;
  } catch (e) {
    throw new Error(
      `ConfigMap ${ETCD_STATE_NAMESPACE}/${ETCD_STATE_CONFIGMAP}: invalid etcd state: ${(e as Error).message}`,
    );
  }
}

export class EtcdClusterStore {
  constructor(private readonly client: Client) {}

  async read(): Promise<EtcdClusterState | undefined> {
    return parse(await this.client.tryGet(ref));
  }

  /**
   * Reads the state, lets `change` decide (it may throw, e.g. an EtcdRpcError) and writes the new state when it says
   * so; retried from a fresh read when another writer got there first.
   */
  async update<R>(
    change: (state: EtcdClusterState | undefined) => { state: EtcdClusterState; result: R; changed: boolean },
  ): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      const cm = await this.client.tryGet(ref);
      const out = change(parse(cm));
      if (!out.changed) return out.result;
      const data = { [STATE_KEY]: JSON.stringify(out.state) };
      try {
        if (cm) await this.client.update({ ...cm, data });
        else await this.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...nameOf() }, data });
        return out.result;
      } catch (e) {
        if (!(isConflict(e) || isAlreadyExists(e)) || attempt >= MAX_ATTEMPTS) throw e;
      }
    }
  }
}

const nameOf = () => ({ name: ETCD_STATE_CONFIGMAP, namespace: ETCD_STATE_NAMESPACE });
