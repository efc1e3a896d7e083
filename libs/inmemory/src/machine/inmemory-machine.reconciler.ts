// InMemoryMachine controller: boots a simulated VM (after a delay), registers its Node in the workload cluster,
// reports provisioned/providerID/addresses; on deletion removes the Node and the finalizer.
import { Inject, Optional } from '@nestjs/common';
import {
  CLUSTER_NAME_LABEL,
  ClusterGVK,
  MACHINE_CONTROL_PLANE_LABEL,
  MachineGVK,
  type Cluster,
  type Machine,
} from '@capi/api';
import { ETCD_CA, clusterSecretName, keyPairFromSecret } from '@capi/certs';
import {
  CACHE,
  CACHED_CLIENT,
  ReconcilerFor,
  type InformerCache,
  type Client,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { ServerSideApplier } from '@capi/ssa';
import { INMEMORY_API_VERSION, type InMemoryMachine } from '../api/types';
import {
  INMEMORY_FIELD_MANAGER,
  INMEMORY_MACHINE_CONTROLLER,
  INMEMORY_MACHINE_FINALIZER,
  INTERNAL_ERROR_REASON,
  WAITING_FOR_VM_PROVISIONED_REASON,
} from '../api/constants';
import {
  DEFAULT_PROVISIONING_DELAY_MS,
  INMEMORY_OPTIONS,
  WORKLOAD_CLUSTERS,
  type InMemoryProviderOptions,
} from '../options';
import type { RunningWorkloadCluster, WorkloadClusters } from '../workload/workload-clusters';
import { applyNode, removeNode } from '../host/nodes';
import { bootstrapDataFiles, HostFileError, type HostFiles } from '../host/files';
import { ensureKubeadmObjects, kubeadmInitInputs } from '../host/kubeadm-objects';
import {
  desiredMachineStatus,
  type EtcdProvisioning,
  initialHostState,
  isPaused,
  machinePhase,
  type MachinePhase,
  ownerMachineName,
  provisioningProgress,
  providerIdOf,
} from './decide';
import { addFinalizer, removeFinalizer } from '../util/finalizers';
import { jsonEqual, type KubeObject } from '@capi/apimachinery';
import { machineInputsChangedPredicate } from '../util/machine-inputs';

const KIND = 'InMemoryMachine';
const isControlPlane = (machine: Machine) => machine.metadata.labels?.[MACHINE_CONTROL_PLANE_LABEL] !== undefined;
/** Requeue while the Cluster is missing or paused (nothing watched here tells when that changes). */
const RETRY_MS = 10_000;
/** Requeue while the etcd CA Secret is missing or invalid (upstream returns an error: retried with backoff). */
const ETCD_CA_RETRY_MS = 2000;
/** How long a reconcile waits for the cache to observe its own InMemoryMachine write. */
const CACHE_WAIT_MS = 5000;

@ReconcilerFor({
  name: INMEMORY_MACHINE_CONTROLLER,
  for: { apiVersion: INMEMORY_API_VERSION, kind: KIND },
  watches: [
    {
      apiVersion: MachineGVK.apiVersion,
      kind: MachineGVK.kind,
      // A Machine's changes (e.g. bootstrap data ready) reconcile its InMemoryMachine.
      map: (m) => {
        const ref = (m as Machine).spec?.infrastructureRef;
        return ref?.kind === KIND && m.metadata.namespace ? [{ namespace: m.metadata.namespace, name: ref.name }] : [];
      },
      predicates: [machineInputsChangedPredicate],
    },
  ],
  maxConcurrentReconciles: 10,
})
export class InMemoryMachineReconciler implements Reconciler {
  /** uid → when its VM started booting (in-memory, like the simulated VM itself). */
  private readonly bootStartedAt = new Map<string, number>();
  private readonly applier: ServerSideApplier;
  private readonly delayMs: number;
  private readonly now: () => number;

  constructor(
    @Inject(CACHED_CLIENT) private readonly client: Client,
    @Inject(WORKLOAD_CLUSTERS) private readonly workloads: WorkloadClusters,
    @Inject(INMEMORY_OPTIONS) options: InMemoryProviderOptions,
    @Optional() applier?: ServerSideApplier,
    @Optional() @Inject(CACHE) private readonly cache?: InformerCache,
  ) {
    this.applier = applier ?? new ServerSideApplier();
    this.delayMs = options.provisioningDelayMs ?? DEFAULT_PROVISIONING_DELAY_MS;
    this.now = options.now ?? Date.now;
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const infra = await this.client.tryGet<InMemoryMachine>({
      apiVersion: INMEMORY_API_VERSION,
      kind: KIND,
      namespace: req.namespace,
      name: req.name,
    });
    if (!infra) return;
    const machineName = ownerMachineName(infra);
    const machine = machineName
      ? await this.client.tryGet<Machine>({
          apiVersion: MachineGVK.apiVersion,
          kind: 'Machine',
          namespace: req.namespace,
          name: machineName,
        })
      : undefined;
    if (infra.metadata.deletionTimestamp) return this.reconcileDelete(infra, machine, ctx.signal);
    // Waiting for the Machine controller to set the ownerReference (the Machine watch brings us back).
    if (!machine) return;
    const cluster = await this.client.tryGet<Cluster>({
      apiVersion: ClusterGVK.apiVersion,
      kind: 'Cluster',
      namespace: req.namespace,
      name: machine.spec.clusterName,
    });
    if (!cluster) return { requeueAfterMs: RETRY_MS };
    if (isPaused(cluster, infra)) return { requeueAfterMs: RETRY_MS };

    if (!infra.metadata.finalizers?.includes(INMEMORY_MACHINE_FINALIZER))
      await addFinalizer(this.client, infra, INMEMORY_MACHINE_FINALIZER);

    // providerID is set only once the VM runs, and lands before the status write: a reconcile triggered by that
    // spec write may still read the old status, and must not start the boot over.
    const provisioned = infra.status?.initialization?.provisioned === true || !!infra.spec.providerID;
    let progress;
    if (!provisioned && machine.spec.bootstrap.dataSecretName) {
      const uid = infra.metadata.uid!;
      if (!this.bootStartedAt.has(uid)) this.bootStartedAt.set(uid, this.now());
      progress = provisioningProgress(this.bootStartedAt.get(uid)!, this.now(), this.delayMs);
    }
    let phase: MachinePhase = provisioned ? { phase: 'Running' } : machinePhase(machine, progress);
    const controlPlane = isControlPlane(machine);
    // Only a running VM's etcd member can have the CA (decide: WaitingForVMProvisioned until then).
    let etcd: EtcdProvisioning | undefined = controlPlane
      ? { ok: false, reason: WAITING_FOR_VM_PROVISIONED_REASON, message: '' }
      : undefined;

    if (phase.phase === 'Running') {
      const running = await this.ensureNode(cluster, machine, infra).catch((e: unknown) => {
        if (!(e instanceof HostFileError)) throw e;
        phase = { phase: 'BootstrapFailed', message: e.message };
        return undefined;
      });
      if (running) {
        if (controlPlane) etcd = await this.ensureEtcdCA(cluster, running);
        await this.ensureProviderID(ctx.signal, infra, providerIdOf(machine));
        this.bootStartedAt.delete(infra.metadata.uid!);
      }
    }
    const status = desiredMachineStatus(infra, machine, phase, { now: this.now }, etcd);
    await this.writeStatus(ctx.signal, infra, status);
    if (phase.phase === 'Booting') return { requeueAfterMs: phase.remainingMs };
    // The bootstrap data Secret is not watched: poll until it can be run.
    if (phase.phase === 'BootstrapFailed') return { requeueAfterMs: RETRY_MS };
    // Nothing watched tells when the etcd CA Secret appears (upstream returns an error and is retried).
    if (phase.phase === 'Running' && etcd && !etcd.ok) return { requeueAfterMs: ETCD_CA_RETRY_MS };
  }

  /**
   * Hands the cluster's etcd CA (the `<cluster>-etcd` Secret, written by the control plane provider) to the workload
   * API server, whose etcd members serve TLS with certificates it signs and verify clients against it (upstream
   * reconcileNormalETCD: AddEtcdMember with the CA from secret.Get(..., secret.EtcdCA)).
   */
  private async ensureEtcdCA(cluster: Cluster, running: RunningWorkloadCluster): Promise<EtcdProvisioning> {
    const name = clusterSecretName(cluster.metadata.name!, ETCD_CA);
    const ref = `${cluster.metadata.namespace}/${name}`;
    const secret = await this.client.tryGet({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: cluster.metadata.namespace,
      name,
    });
    if (!secret)
      return { ok: false, reason: INTERNAL_ERROR_REASON, message: `failed to get etcd CA: Secret ${ref} not found` };
    let ca;
    try {
      ca = keyPairFromSecret(secret);
    } catch (e) {
      return {
        ok: false,
        reason: INTERNAL_ERROR_REASON,
        message: `invalid etcd CA in Secret ${ref}: ${(e as Error).message}`,
      };
    }
    await running.server.setEtcdCA(ca);
    return { ok: true };
  }

  /** Registers the Node unless it exists: after boot, or again after a restart lost the workload server's data. */
  private async ensureNode(
    cluster: Cluster,
    machine: Machine,
    infra: InMemoryMachine,
  ): Promise<RunningWorkloadCluster> {
    const running = await this.workloads.ensure(
      { namespace: cluster.metadata.namespace!, name: cluster.metadata.name!, uid: cluster.metadata.uid! },
      cluster.spec.controlPlaneEndpoint?.port,
    );
    const existing = await running.client.tryGet({ apiVersion: 'v1', kind: 'Node', name: machine.metadata.name! });
    // A deleting Machine's Node is being removed on purpose: never re-register it.
    if (existing || machine.metadata.deletionTimestamp) return running;
    const host = initialHostState(machine, infra, await this.bootstrapFiles(machine));
    // Before the Node: a failure is retried, since the Node's existence ends this step.
    if (host.controlPlane)
      await ensureKubeadmObjects(running.client, await kubeadmInitInputs(this.client, cluster, machine));
    await applyNode(running.client, host, new Date(this.now()));
    return running;
  }

  /** What the VM's cloud-init writes from the Machine's bootstrap data (a HostFileError when it cannot be run). */
  private async bootstrapFiles(machine: Machine): Promise<HostFiles> {
    const name = machine.spec.bootstrap.dataSecretName;
    const namespace = machine.metadata.namespace!;
    if (!name) throw new HostFileError(`Machine ${namespace}/${machine.metadata.name} has no bootstrap data`);
    const secret = await this.client.tryGet({ apiVersion: 'v1', kind: 'Secret', namespace, name });
    return bootstrapDataFiles(secret, `${namespace}/${name}`);
  }

  private async ensureProviderID(signal: AbortSignal, infra: InMemoryMachine, providerID: string): Promise<void> {
    if (infra.spec.providerID === providerID) return;
    const intent: KubeObject = {
      apiVersion: INMEMORY_API_VERSION,
      kind: KIND,
      metadata: { name: infra.metadata.name, namespace: infra.metadata.namespace },
      spec: { providerID },
    };
    await this.applier.patch(this.client, intent, { fieldOwner: INMEMORY_FIELD_MANAGER, original: infra });
    await this.observe(intent, signal);
    // The apply bumped the generation: the status written next observes it (no extra status write later).
    infra.metadata = {
      ...infra.metadata,
      generation: intent.metadata.generation,
      resourceVersion: intent.metadata.resourceVersion,
    };
    infra.spec = { ...infra.spec, providerID };
  }

  /**
   * Waits until the cache has our write (or, for the one that let the object go, its absence), so the reconcile it
   * triggers does not redo it from a stale read.
   */
  private async observe(obj: KubeObject, signal: AbortSignal): Promise<void> {
    if (!this.cache || !obj.metadata.resourceVersion) return;
    await this.cache.waitForWrite({ ...obj, apiVersion: INMEMORY_API_VERSION, kind: KIND }, CACHE_WAIT_MS, signal);
  }

  private async writeStatus(
    signal: AbortSignal,
    infra: InMemoryMachine,
    status: NonNullable<InMemoryMachine['status']>,
  ): Promise<void> {
    if (jsonEqual(infra.status ?? {}, status)) return;
    const written = await this.client.apply(
      {
        apiVersion: INMEMORY_API_VERSION,
        kind: KIND,
        metadata: { name: infra.metadata.name, namespace: infra.metadata.namespace },
        status,
      },
      { fieldManager: INMEMORY_FIELD_MANAGER, subresource: 'status', force: true },
    );
    await this.observe(written, signal);
  }

  private async reconcileDelete(
    infra: InMemoryMachine,
    machine: Machine | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    this.bootStartedAt.delete(infra.metadata.uid!);
    if (!infra.metadata.finalizers?.includes(INMEMORY_MACHINE_FINALIZER)) return;
    const clusterName = machine?.spec.clusterName ?? infra.metadata.labels?.[CLUSTER_NAME_LABEL];
    const running = clusterName
      ? this.workloads.get({ namespace: infra.metadata.namespace!, name: clusterName })
      : undefined;
    // No running workload server: the simulated host is gone with it, nothing left to clean up.
    const nodeName = machine?.metadata.name ?? ownerMachineName(infra);
    if (running && nodeName)
      await removeNode(running.client, nodeName, machine ? isControlPlane(machine) : undefined, running.forceDeletePod);
    const released = await removeFinalizer(this.client, infra, INMEMORY_MACHINE_FINALIZER);
    // A reconcile queued meanwhile (the Machine's own events) must not find it in the cache still and remove again.
    if (released) await this.observe(released, signal);
  }
}
