// Runs the simulated workload cluster's kubelets, scheduler and controllers (controllers.ts, kubelet.ts, volumes.ts)
// against one workload API server, in the process serving it (like its etcd members), through its HTTP API as a
// cluster's own components would. Level-triggered: a watch event on Nodes, Pods, Deployments or DaemonSets, or a
// delay running out, starts a pass that plans from the informers' view of the cluster (snapshot-cache.ts: once this
// process's previous writes are in it) and writes. Nothing runs while the cluster is at rest. Planning is linear in
// the cluster's size and a big busy cluster has events all the time, so a pass waits PLAN_GAP_FACTOR times as long as
// the last one planned: planning takes at most a quarter of the process serving the cluster's API.
import { renderKubeconfig, type Logger, type StartedServer } from '@capi/apiserver';
import type { KubeObject } from '@capi/apimachinery';
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  KubeClient,
  type Client,
  type ObjectRef,
} from '@capi/controller-runtime';
import { KubeConfig } from '@kubernetes/client-node';
import { podForceDeleter, type ForceDeletePod } from './force-delete';
import { planDaemonSets, planDeployments, planReplicaSets } from './controllers';
import { planKubelets } from './kubelet';
import { planNodeTaints } from './node-lifecycle';
import { DEFAULT_SAMPLE_REPLICAS, sampleWorkloadObjects } from './sample-workload';
import { notServed, SnapshotCache, type Written } from './snapshot-cache';
import type { SimAction } from './types';
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

/** How long the first pass waits for the informers to sync, and a pass for its previous writes to show. */
const SYNC_TIMEOUT_MS = 30_000;
const OBSERVE_TIMEOUT_MS = 10_000;
/** The pause after a pass, in multiples of its planning time, and at most. */
const PLAN_GAP_FACTOR = 3;
const MAX_GAP_MS = 5000;

export class WorkloadSimulator {
  private readonly cache: SnapshotCache;
  private cacheStarted = false;
  /** When the last pass ended and the pause it earned (PLAN_GAP_FACTOR). */
  private lastPassEnd = 0;
  private gapMs = 0;
  private lastWrites: Written[] = [];
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
    this.cache = new SnapshotCache(client);
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
    this.schedule(this.now());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.cache.stop();
    this.onClose?.();
  }

  /** Runs a pass at `at` (or earlier if one is due earlier already). */
  private schedule(at: number): void {
    at = Math.max(at, this.lastPassEnd + this.gapMs);
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
      await this.pass();
    } catch (e) {
      if (!this.stopped) {
        this.logger?.error(`workload simulation pass failed: ${(e as Error).message}`);
        this.schedule(this.now() + RETRY_MS);
      }
    } finally {
      this.running = false;
      this.lastPassEnd = this.now();
    }
    if (this.again) {
      this.again = false;
      this.schedule(this.now() + DEBOUNCE_MS);
    }
  }

  private async pass(): Promise<void> {
    if (!this.cacheStarted) {
      const poke = () => this.schedule(this.now() + DEBOUNCE_MS);
      const synced = await this.cache.start(poke, SYNC_TIMEOUT_MS);
      // Stopped meanwhile: the informers started after stop() stopped the cache.
      if (this.stopped) return void (await this.cache.stop());
      if (!synced) throw new Error('the workload cluster cache did not sync');
      this.cacheStarted = true;
    }
    if (!this.sampleCreated) await this.createSample();
    // Plans only from a view that has this simulator's previous writes; a write still missing after the timeout
    // (a slow server) is left to the following pass, which the watch event brings.
    await this.cache.observe(this.lastWrites, OBSERVE_TIMEOUT_MS);
    if (this.stopped) return;
    const planStart = performance.now();
    const snapshot = this.cache.snapshot();
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
    this.gapMs = Math.min(MAX_GAP_MS, PLAN_GAP_FACTOR * (performance.now() - planStart));
    const writes: Written[] = [];
    for (const action of actions) {
      if (this.stopped) break;
      const written = await this.execute(action);
      if (written) writes.push(written);
    }
    this.lastWrites = writes;
    for (const at of [kubelets.wakeAt, volumes.wakeAt]) if (at !== undefined) this.schedule(at);
    // Volumes follow Pods: a pass that changed Pods looks again (the watch brings it back for Pod writes anyway).
    if (actions.length > 0) this.schedule(this.now() + DEBOUNCE_MS);
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

  /** Carries out one action; what the cache must show of it, or nothing when it was moot. */
  private async execute(action: SimAction): Promise<Written | undefined> {
    try {
      switch (action.op) {
        case 'create': {
          const created = await this.client.create<KubeObject>(action.object);
          const ref = refOfCreated(created);
          const written = action.status ? await this.writeStatus(ref, action.status) : created;
          return { ref, resourceVersion: written.metadata.resourceVersion! };
        }
        case 'status': {
          const written = await this.writeStatus(action.ref, action.status);
          return { ref: action.ref, resourceVersion: written.metadata.resourceVersion! };
        }
        case 'patch': {
          const written = await this.client.patch<KubeObject>(action.ref, 'merge', action.patch);
          return { ref: action.ref, resourceVersion: written.metadata.resourceVersion! };
        }
        case 'delete':
          if (action.force) await this.forceDelete(action.ref, action.uid);
          else await this.client.delete(action.ref, action.uid ? { preconditions: { uid: action.uid } } : {});
          return { ref: action.ref, uid: action.uid, deleted: true, terminating: !action.force };
      }
    } catch (e) {
      // Someone else changed or removed it since the pass read it: the next pass sees that.
      if (isNotFound(e) || isConflict(e)) return undefined;
      throw e;
    }
  }

  private writeStatus(ref: ObjectRef, status: Record<string, unknown>): Promise<KubeObject> {
    return this.client.patch<KubeObject>(ref, 'merge', { status }, { subresource: 'status' });
  }
}

const refOfCreated = (obj: KubeObject): ObjectRef => ({
  apiVersion: obj.apiVersion,
  kind: obj.kind,
  namespace: obj.metadata.namespace,
  name: obj.metadata.name!,
});
