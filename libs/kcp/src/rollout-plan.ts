// What the KCP controller would do to roll out its current spec, decided by the controller's own code and writing
// nothing (the `capi-inplace rollout plan` of a KubeadmControlPlane): which Machines are outdated (uptodate.ts), the
// order of steps (decide.ts planReconcile, upstream reconcilers/kubeadmcontrolplane/controller.go reconcile →
// scale.go / rollout: one Machine at a time), and for the Machine a step picks the in-place attempt (try-inplace.ts
// with CanUpdateMachine built by inplace.ts: server-side-apply DRY-RUN patches, which persist nothing).
import {
  CLUSTER_API_VERSION,
  PENDING_HOOKS_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import type { Client } from '@capi/controller-runtime';
import { ContractVersionResolver } from '@capi/external';
import type { CoverageRuntimeClient } from '@capi/inplace';
import { ServerSideApplier } from '@capi/ssa';
import { planReconcile, maxSurge, desiredReplicas, type ControlPlaneMachine } from './decide';
import { controlPlaneFailureDomains } from './failure-domains';
import { isEtcdManaged } from './health';
import { canUpdateMachine } from './inplace';
import { getInfraMachine, getInfraTemplate, getKubeadmConfig, type MachineIo } from './machines';
import { getOwningCluster } from './owning-cluster';
import { controlPlaneSelector } from './status';
import { tryInPlaceUpdate } from './try-inplace';
import { upToDate, type NotUpToDateResult } from './uptodate';

export type KcpMachineOutcome =
  { type: 'upToDate' } | { type: 'inPlace'; updaters: string[] } | { type: 'replaced'; reasons: string[] };

export interface KcpRolloutPlan {
  replicas: number;
  maxSurge: number;
  /** Per control-plane Machine (oldest first), what the rollout does to it. */
  machines: { name: string; outcome: KcpMachineOutcome }[];
  /** The controller's steps in order, one Machine at a time. */
  steps: string[];
  /** The sequence was cut short (no end within the step bound): a bug, shown rather than looping. */
  incomplete?: string;
}

export interface KcpPlanDeps {
  client: Client;
  runtimeClient?: CoverageRuntimeClient;
}

/** Thrown for a KCP the plan cannot be made for (no Cluster, no infrastructure template). */
export class KcpPlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KcpPlanError';
  }
}

const name = (m: Machine) => m.metadata.name ?? '';
const created = (m: Machine) => (m.metadata.creationTimestamp ? Date.parse(m.metadata.creationTimestamp) : 0);

async function readControlPlaneMachines(io: MachineIo, kcp: KubeadmControlPlane, clusterName: string) {
  const list = await io.client.list<Machine>(CLUSTER_API_VERSION, 'Machine', {
    namespace: kcp.metadata.namespace,
    labelSelector: controlPlaneSelector(clusterName),
  });
  return list.items
    .filter((m) =>
      m.metadata.ownerReferences?.some(
        (r) =>
          r.controller === true &&
          r.kind === 'KubeadmControlPlane' &&
          r.name === kcp.metadata.name &&
          (!r.uid || !kcp.metadata.uid || r.uid === kcp.metadata.uid),
      ),
    )
    .sort((a, b) => created(a) - created(b) || (name(a) < name(b) ? -1 : 1));
}

/** The Machine as it is once its running in-place update finished: the markers gone. */
function withoutInPlaceMarkers(m: Machine): Machine {
  const annotations = { ...(m.metadata.annotations ?? {}) };
  delete annotations[UPDATE_IN_PROGRESS_ANNOTATION];
  delete annotations[PENDING_HOOKS_ANNOTATION];
  return { ...m, metadata: { ...m.metadata, annotations } };
}

/**
 * Plans the rollout of `kcp` (its spec as given, e.g. a manifest merged over the live object) against the live
 * Machines and their objects. The control plane is taken as healthy (preflight checks pass: their inputs are read
 * from the workload cluster) and the InPlaceUpdates gate as on.
 */
export async function planKcpRollout(deps: KcpPlanDeps, kcp: KubeadmControlPlane, now: Date): Promise<KcpRolloutPlan> {
  const ref = `${kcp.metadata.namespace}/${kcp.metadata.name}`;
  const cluster = await getOwningCluster(deps.client, kcp);
  if (!cluster) throw new KcpPlanError(`KubeadmControlPlane ${ref} has no Cluster`);
  const clusterName = cluster.metadata.name ?? '';
  const io: MachineIo = {
    client: deps.client,
    applier: new ServerSideApplier(),
    resolver: new ContractVersionResolver(deps.client),
  };
  const template = await getInfraTemplate(io, kcp);
  const infraRef = kcp.spec.machineTemplate.spec.infrastructureRef;
  if (!template) throw new KcpPlanError(`${infraRef.kind} ${kcp.metadata.namespace}/${infraRef.name} not found`);

  const machines = await readControlPlaneMachines(io, kcp, clusterName);
  const results = new Map<string, NotUpToDateResult>();
  let view: ControlPlaneMachine[] = [];
  for (const machine of machines) {
    const [kubeadmConfig, infraMachine] = await Promise.all([
      getKubeadmConfig(io, machine),
      getInfraMachine(io, machine),
    ]);
    const r = upToDate({ kcp, clusterName, machine, kubeadmConfig, infraMachine, infraTemplate: template, now });
    results.set(name(machine), r.result);
    view.push({ machine, upToDate: r.upToDate, eligibleForInPlaceUpdate: r.result.eligibleForInPlaceUpdate });
  }
  const outcomes = new Map<string, KcpMachineOutcome>(
    view.filter((m) => m.upToDate).map((m) => [name(m.machine), { type: 'upToDate' }]),
  );
  const replicas = desiredReplicas(kcp);
  const plan: KcpRolloutPlan = { replicas, maxSurge: maxSurge(kcp), machines: [], steps: [] };
  const failureDomains = controlPlaneFailureDomains(cluster);
  const etcdManaged = isEtcdManaged(kcp);
  const canUpdateDeps = { client: io.client, applier: io.applier, runtimeClient: deps.runtimeClient };
  let newMachines = 0;
  const lastCreated = Math.max(now.getTime(), ...machines.map(created));

  // Each pass is one reconcile that acts: the controller's decision, then its effect on the simulated Machines.
  const bound = 2 * (machines.length + replicas) + 4;
  for (let i = 0; ; i++) {
    if (i === bound) {
      plan.incomplete = `no end after ${bound} steps`;
      break;
    }
    const action = planReconcile(kcp, view, true, failureDomains);
    if (action.type === 'none' || action.type === 'initialize') break;
    if (action.type === 'completeInPlaceTrigger' || action.type === 'waitForInPlaceUpdate') {
      plan.steps.push(`wait for the in-place update of ${action.machines.join(', ')} to finish`);
      const waiting = new Set(action.machines);
      view = view.map((m) =>
        waiting.has(name(m.machine)) ? { ...m, machine: withoutInPlaceMarkers(m.machine), upToDate: true } : m,
      );
      continue;
    }
    if (action.type === 'scaleUp') {
      const m = `new-${++newMachines}`;
      const machine: Machine = {
        apiVersion: CLUSTER_API_VERSION,
        kind: 'Machine',
        metadata: { name: m, creationTimestamp: new Date(lastCreated + newMachines * 1000).toISOString() },
        spec: { clusterName, bootstrap: {}, infrastructureRef: { ...infraRef }, version: kcp.spec.version },
      } as Machine;
      view.push({ machine, upToDate: true, eligibleForInPlaceUpdate: false });
      plan.steps.push(`scale up: create Machine ${m} (up to date)`);
      continue;
    }
    if (action.type === 'scaleDown') {
      view = view.filter((m) => name(m.machine) !== action.machine);
      plan.steps.push(`scale down: delete Machine ${action.machine}`);
      continue;
    }
    // rolloutMachine: in place when tried and accepted, else the Machine is deleted (scale down).
    const candidate = action.machine;
    const r = results.get(candidate)!;
    let triggered: string[] | undefined;
    let reasons: string[] = [];
    if (action.tryInPlace) {
      const outcome = await tryInPlaceUpdate(view, candidate, etcdManaged, {
        preflight: () => ({ ok: true, messages: [], results: {} }),
        // Each Machine is asked at most once: afterwards it is up to date or gone.
        canUpdateMachine: () => canUpdateMachine(canUpdateDeps, r, true),
        triggerInPlaceUpdate: async (updaters) => {
          triggered = updaters ?? [];
        },
      });
      if (outcome.type === 'fallbackToScaleDown') reasons = outcome.reasons ?? [];
    } else if (!r.eligibleForInPlaceUpdate) {
      reasons = [...r.conditionMessages, 'this change needs a new Machine'];
    } else {
      reasons = [`${replicas} Machines are up to date already: KCP deletes the outdated rest`];
    }
    if (triggered) {
      outcomes.set(candidate, { type: 'inPlace', updaters: triggered });
      view = view.map((m) => (name(m.machine) === candidate ? { ...m, upToDate: true } : m));
      plan.steps.push(
        `update Machine ${candidate} in place by ${triggered.length ? triggered.join(', ') : 'the registered updaters'}, and wait for it`,
      );
    } else {
      outcomes.set(candidate, { type: 'replaced', reasons });
      view = view.filter((m) => name(m.machine) !== candidate);
      plan.steps.push(`delete Machine ${candidate}`);
    }
  }
  plan.machines = machines.map((m) => ({
    name: name(m),
    outcome: outcomes.get(name(m)) ?? { type: 'replaced', reasons: ['not reached by the plan'] },
  }));
  return plan;
}
