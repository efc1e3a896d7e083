// Runs the simulated workload cluster's kubelets, scheduler and controllers (controllers.ts, kubelet.ts, volumes.ts)
// against one workload API server, in the process serving it (like its etcd members), through its HTTP API as a
// cluster's own components would. Level-triggered: a watch event on Nodes, Pods, Deployments or DaemonSets, or a
// delay running out, starts a pass that lists the cluster (consistent reads: a pass never acts on its own stale
// writes), plans and writes. Nothing runs while the cluster is at rest.
import { renderKubeconfig, type Logger, type StartedServer } from '@capi/apiserver';
import type { KubeObject } from '@capi/apimachinery';
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  KubeClient,
  NoKindMatchError,
  SharedInformer,
  type Client,
  type ObjectRef,
} from '@capi/controller-runtime';
import { KubeConfig } from '@kubernetes/client-node';
import { podForceDeleter, type ForceDeletePod } from './force-delete';
import { planDaemonSets, planDeployments, planReplicaSets } from './controllers';
import { planKubelets } from './kubelet';
import { planNodeTaints } from './node-lifecycle';
import { DEFAULT_SAMPLE_REPLICAS, sampleWorkloadObjects } from './sample-workload';
import type { ClusterSnapshot, SimAction } from './types';
import { planVolumeBinding, planVolumes } from './volumes';

/** What the simulated workload cluster runs besides its Nodes and mirror Pods (InMemoryProviderOptions.workloadPods). */
export interface WorkloadPodsOptions {
  /**
   * Deployment default/sample (3 replicas unless given) with a PodDisruptionBudget (minAvailable replicas - 1) and a
   * shared CSI volume; default true.
   */
  sampleWorkload?: boolean | { replicas?: number };
  /** How long a terminating Pod takes to shut down before its kubelet removes it (default 1000 ms; at most its grace period). */
  podShutdownMs?: number;
  /** How long a volume stays attached to a Node after its last Pod there is gone (default 1000 ms). */
  volumeDetachDelayMs?: number;
}

export const DEFAULT_POD_SHUTDOWN_MS = 1000;
export const DEFAULT_VOLUME_DETACH_DELAY_MS = 1000;
/** The field manager of the simulated kubelets and controllers (apart from the provider's host writes). */
export const WORKLOAD_SIMULATOR_FIELD_MANAGER = 'capi-inmemory-workload';
/** Coalesces a burst of watch events into one pass. */
const DEBOUNCE_MS = 20;
/** Retry after a failed pass (the server is busy or restarting). */
const RETRY_MS = 1000;

const LISTS: [keyof ClusterSnapshot, string, string][] = [
  ['nodes', 'v1', 'Node'],
  ['pods', 'v1', 'Pod'],
  ['deployments', 'apps/v1', 'Deployment'],
  ['replicaSets', 'apps/v1', 'ReplicaSet'],
  ['daemonSets', 'apps/v1', 'DaemonSet'],
  ['persistentVolumeClaims', 'v1', 'PersistentVolumeClaim'],
  ['persistentVolumes', 'v1', 'PersistentVolume'],
  ['volumeAttachments', 'storage.k8s.io/v1', 'VolumeAttachment'],
];
const TRIGGERS: [string, string][] = [
  ['v1', 'Node'],
  ['v1', 'Pod'],
  ['apps/v1', 'Deployment'],
  ['apps/v1', 'DaemonSet'],
];

const notServed = (e: unknown) => e instanceof NoKindMatchError || isNotFound(e);

export class WorkloadSimulator {
  private readonly informers: SharedInformer[] = [];
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  private running = false;
  private again = false;
  private stopped = false;
  private sampleCreated = false;
  private unneededSince = new Map<string, number>();
  private terminatingSince = new Map<string, number>();
  private readonly shutdownMs: number;
  private readonly detachDelayMs: number;

  constructor(
    private readonly client: Client,
    private readonly forceDelete: ForceDeletePod,
    private readonly opts: WorkloadPodsOptions = {},
    private readonly logger?: Logger,
    private readonly now: () => number = Date.now,
    private readonly onClose?: () => void,
  ) {
    this.shutdownMs = opts.podShutdownMs ?? DEFAULT_POD_SHUTDOWN_MS;
    this.detachDelayMs = opts.volumeDetachDelayMs ?? DEFAULT_VOLUME_DETACH_DELAY_MS;
  }

  /** The simulator of a server in this process, with its own clients of it (closed with the simulator). */
  static forServer(server: StartedServer, opts: WorkloadPodsOptions, logger?: Logger): WorkloadSimulator {
    const kubeconfig = renderKubeconfig({ ...server, name: 'workload' });
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    const client = new KubeClient(kc, { fieldManager: WORKLOAD_SIMULATOR_FIELD_MANAGER });
    const forceDelete = podForceDeleter(kubeconfig);
    return new WorkloadSimulator(client, forceDelete, opts, logger, Date.now, () => client.close());
  }

  start(): void {
    for (const [apiVersion, kind] of TRIGGERS) {
      const informer = new SharedInformer(this.client, apiVersion, kind);
      const poke = () => this.schedule(this.now() + DEBOUNCE_MS);
      informer.addEventHandler({ onAdd: poke, onUpdate: poke, onDelete: poke });
      informer.start();
      this.informers.push(informer);
    }
    this.schedule(this.now());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all(this.informers.map((i) => i.stop()));
    this.onClose?.();
  }

  /** Runs a pass at `at` (or earlier if one is due earlier already). */
  private schedule(at: number): void {
    if (this.stopped || at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timerAt = Infinity;
        void this.run();
      },
      Math.max(0, at - this.now()),
    );
    this.timer.unref?.();
  }

  private async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        await this.pass();
      } while (this.again && !this.stopped);
    } catch (e) {
      if (!this.stopped) {
        this.logger?.error(`workload simulation pass failed: ${(e as Error).message}`);
        this.schedule(this.now() + RETRY_MS);
      }
    } finally {
      this.running = false;
    }
  }

  private async pass(): Promise<void> {
    if (!this.sampleCreated) await this.createSample();
    const snapshot = await this.snapshot();
    const now = this.now();
    const kubelets = planKubelets(snapshot, now, this.terminatingSince, this.shutdownMs);
    this.terminatingSince = kubelets.terminatingSince;
    const volumes = planVolumes(snapshot, now, this.unneededSince, this.detachDelayMs);
    this.unneededSince = volumes.unneededSince;
    const actions = [
      ...planNodeTaints(snapshot),
      ...planDeployments(snapshot),
      ...planReplicaSets(snapshot),
      ...planDaemonSets(snapshot),
      ...kubelets.actions,
      ...planVolumeBinding(snapshot),
      ...volumes.actions,
    ];
    for (const action of actions) {
      if (this.stopped) return;
      await this.execute(action);
    }
    for (const at of [kubelets.wakeAt, volumes.wakeAt]) if (at !== undefined) this.schedule(at);
    // Volumes follow Pods: a pass that changed Pods looks again (the watch brings it back for Pod writes anyway).
    if (actions.length > 0) this.schedule(this.now() + DEBOUNCE_MS);
  }

  private async snapshot(): Promise<ClusterSnapshot> {
    const lists = await Promise.all(
      LISTS.map(([, apiVersion, kind]) =>
        this.client.list(apiVersion, kind).then(
          (l) => l.items,
          // A kind this server does not serve: nothing of it to simulate.
          (e) => (notServed(e) ? [] : Promise.reject(e)),
        ),
      ),
    );
    return Object.fromEntries(LISTS.map(([key], i) => [key, lists[i]])) as unknown as ClusterSnapshot;
  }

  private async createSample(): Promise<void> {
    const sample = this.opts.sampleWorkload ?? true;
    if (sample !== false) {
      const replicas = (typeof sample === 'object' ? sample.replicas : undefined) ?? DEFAULT_SAMPLE_REPLICAS;
      for (const obj of sampleWorkloadObjects(replicas)) {
        try {
          await this.client.create(obj);
        } catch (e) {
          if (notServed(e)) this.logger?.error(`workload simulation: ${obj.kind} is not served, not created`);
          else if (!isAlreadyExists(e)) throw e;
        }
      }
    }
    this.sampleCreated = true;
  }

  private async execute(action: SimAction): Promise<void> {
    try {
      switch (action.op) {
        case 'create': {
          const created = await this.client.create<KubeObject>(action.object);
          if (action.status) await this.writeStatus(refOfCreated(created), action.status);
          return;
        }
        case 'status':
          return await this.writeStatus(action.ref, action.status);
        case 'patch':
          await this.client.patch(action.ref, 'merge', action.patch);
          return;
        case 'delete':
          if (action.force) return await this.forceDelete(action.ref, action.uid);
          return await this.client.delete(action.ref, action.uid ? { preconditions: { uid: action.uid } } : {});
      }
    } catch (e) {
      // Someone else changed or removed it since the pass listed it: the next pass sees that.
      if (isNotFound(e) || isConflict(e)) return;
      throw e;
    }
  }

  private async writeStatus(ref: ObjectRef, status: Record<string, unknown>): Promise<void> {
    await this.client.patch(ref, 'merge', { status }, { subresource: 'status' });
  }
}

const refOfCreated = (obj: KubeObject): ObjectRef => ({
  apiVersion: obj.apiVersion,
  kind: obj.kind,
  namespace: obj.metadata.namespace,
  name: obj.metadata.name!,
});
