// MachineHealthCheck reconciler: read the MHC, its Cluster, Machines and Nodes; let evaluate/marking/
// remediation-allowed decide; apply Machine conditions and the MHC status with the capi-machinehealthcheck manager.
import { Inject, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  jsonEqual,
  LabelSelectorError,
  matchesLabelSelector,
  realClock,
  type PassiveClock,
  type KubeObject,
} from '@capi/apimachinery';
import { CLUSTER_NAME_FIELD, indexMachineHealthChecks, indexMachines } from '@capi/index';
import {
  CLUSTER_NAME_LABEL,
  ClusterGVK,
  MachineGVK,
  MachineHealthCheckGVK,
  getCondition,
  setCondition,
  type Condition,
  type ConditionInput,
} from '@capi/api';
import {
  CACHE,
  CACHED_CLIENT,
  MANAGER,
  ReconcilerFor,
  type Client,
  type InformerCache,
  type Manager,
  type ReconcileContext,
  type ReconcileLogger,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { WORKLOAD_CLUSTER_CLIENT_PROVIDER, type WorkloadClusterClientProvider } from '@capi/clustercache';
import { clusterPausedTransitions } from '@capi/predicates';
import { ServerSideApplier } from '@capi/ssa';
import { evaluateTarget, isControlPlaneInitialized, type ClusterLike, type TargetHealth } from './evaluate';
import { decideMachineMarking } from './marking';
import {
  MHC_CONTROLLER_NAME,
  MHC_CONTROLLER_OPTIONS,
  MHC_FIELD_MANAGER,
  type MachineHealthCheckControllerOptions,
} from './options';
import { pausedCondition } from './paused';
import {
  INVALID_REMEDIATION_TRIGGER_REASON,
  REMEDIATION_ALLOWED_CONDITION,
  REMEDIATION_ALLOWED_REASON,
  RemediationTriggerError,
  TOO_MANY_UNHEALTHY_REASON,
  decideRemediationAllowed,
} from './remediation-allowed';
import {
  listTargetMachines,
  readTargets,
  type MachineHealthCheckObject,
  type MachineObject,
  type Target,
} from './targets';

export const INVALID_SELECTOR_REASON = 'InvalidSelector';
/** Not upstream: spec.remediation.templateRef (external remediation) is not implemented here. */
export const EXTERNAL_REMEDIATION_NOT_SUPPORTED_REASON = 'ExternalRemediationNotSupported';
/** Node re-check period while a target has a Node (upstream watches workload Nodes through ClusterCache; not here). */
const DEFAULT_NODE_POLL_MS = 30_000;

type ClusterObject = KubeObject & ClusterLike & { spec?: { paused?: boolean } };

interface StatusIntent {
  expectedMachines?: number;
  currentHealthy?: number;
  remediationsAllowed?: number;
  targets?: string[];
  conditions: ConditionInput[];
  observed: boolean;
}

@ReconcilerFor({
  name: MHC_CONTROLLER_NAME,
  for: { apiVersion: MachineHealthCheckGVK.apiVersion, kind: 'MachineHealthCheck' },
  maxConcurrentReconciles: 5,
  // As upstream (machinehealthcheck_controller.go): Machine and Node events reach it very often, and mostly there is
  // nothing to do or remediation waits for a timeout, which it requeues for.
  rateLimitIntervalMs: 15_000,
})
export class MachineHealthCheckReconciler implements Reconciler, OnModuleInit, OnModuleDestroy {
  private readonly clock: PassiveClock;
  private readonly ssa: ServerSideApplier;

  constructor(
    @Inject(CACHED_CLIENT) private readonly client: Client,
    @Inject(CACHE) private readonly cache: InformerCache,
    @Inject(MANAGER) private readonly manager: Manager,
    @Inject(WORKLOAD_CLUSTER_CLIENT_PROVIDER) private readonly workloadClients: WorkloadClusterClientProvider,
    @Inject(MHC_CONTROLLER_OPTIONS) private readonly options: MachineHealthCheckControllerOptions,
    @Optional() ssa?: ServerSideApplier,
  ) {
    this.clock = options.clock ?? realClock;
    this.ssa = ssa ?? new ServerSideApplier();
    indexMachines(cache);
    indexMachineHealthChecks(cache);
  }

  /** Machine and Cluster events re-check the MachineHealthChecks that cover them. */
  onModuleInit(): void {
    // The MachineHealthChecks of one cluster, from the spec.clusterName index.
    const enqueueFor = (
      namespace: string | undefined,
      clusterName: string,
      match: (mhc: MachineHealthCheckObject) => boolean,
    ) => {
      const queue = this.manager.controller(MHC_CONTROLLER_NAME)?.queue;
      if (!queue) return;
      const mhcs = this.cache.listStored<MachineHealthCheckObject>(
        MachineHealthCheckGVK.apiVersion,
        'MachineHealthCheck',
        { namespace, matchingFields: { [CLUSTER_NAME_FIELD]: clusterName } },
      );
      for (const mhc of mhcs)
        if (match(mhc)) queue.add({ namespace: mhc.metadata.namespace, name: mhc.metadata.name! });
    };
    const onMachine = (m: MachineObject) =>
      enqueueFor(m.metadata.namespace, m.spec.clusterName, (mhc) => this.selects(mhc, m));
    const onCluster = (c: KubeObject) => enqueueFor(c.metadata.namespace, c.metadata.name ?? '', () => true);
    this.cache.informerFor<MachineObject>(MachineGVK.apiVersion, 'Machine').addEventHandler({
      onAdd: onMachine,
      // A Machine leaving the selector must also re-check the MHC (targets shrink).
      onUpdate: (o, n) => {
        onMachine(o);
        onMachine(n);
      },
      onDelete: onMachine,
    });
    // Only a Cluster's pause flip (upstream's Cluster watch with predicates.ClusterPausedTransitions in
    // machinehealthcheck_controller.go), not each of its status writes.
    this.cache
      .informerFor(ClusterGVK.apiVersion, 'Cluster')
      .addEventHandler({ onUpdate: (o, n) => clusterPausedTransitions.update!(o, n) && onCluster(n) });
  }

  /** The default provider keeps one client per workload cluster: release their connections. */
  onModuleDestroy(): void {
    (this.workloadClients as Partial<{ closeAll(): void }>).closeAll?.();
  }

  private selects(mhc: MachineHealthCheckObject, m: MachineObject): boolean {
    try {
      return matchesLabelSelector(mhc.spec.selector, m.metadata.labels);
    } catch {
      return false;
    }
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const mhc = await this.client.tryGet<MachineHealthCheckObject>({
      apiVersion: MachineHealthCheckGVK.apiVersion,
      kind: 'MachineHealthCheck',
      namespace: req.namespace,
      name: req.name,
    });
    if (!mhc) return;
    const cluster = await this.client.tryGet<ClusterObject>({
      apiVersion: ClusterGVK.apiVersion,
      kind: 'Cluster',
      namespace: mhc.metadata.namespace,
      name: mhc.spec.clusterName,
    });
    if (!cluster)
      throw new Error(
        `Cluster ${mhc.metadata.namespace}/${mhc.spec.clusterName} of MachineHealthCheck ${req.name} not found`,
      );

    const paused = pausedCondition(cluster.spec?.paused === true, mhc.metadata.annotations);
    if (paused.paused) {
      // Nothing is evaluated; the last report stays (the apply must carry it, or SSA would drop it).
      const cur = mhc.status ?? {};
      const lastAllowed = getCondition(cur.conditions, REMEDIATION_ALLOWED_CONDITION);
      await this.applyStatus(mhc, {
        expectedMachines: cur.expectedMachines,
        currentHealthy: cur.currentHealthy,
        remediationsAllowed: cur.remediationsAllowed,
        targets: cur.targets,
        conditions: [paused, ...(lastAllowed ? [lastAllowed] : [])],
        observed: false,
      });
      return;
    }
    await this.ensureMetadata(mhc, cluster);

    let machines: MachineObject[];
    try {
      machines = await listTargetMachines(this.client, mhc);
    } catch (e) {
      if (!(e instanceof LabelSelectorError)) throw e;
      const condition: ConditionInput = {
        type: REMEDIATION_ALLOWED_CONDITION,
        status: 'False',
        reason: INVALID_SELECTOR_REASON,
        message: `spec.selector is invalid: ${e.message}`,
      };
      await this.applyStatus(mhc, { conditions: [paused, condition], remediationsAllowed: 0, observed: true });
      return;
    }
    const targets = await readTargets(machines, await this.workloadClient(mhc, cluster));
    const now = new Date(this.clock.now());
    const healths = targets.map((t) => evaluateTarget({ ...t, cluster, checks: mhc.spec.checks, now }));
    const healthy = healths.filter((h) => h.state === 'Healthy').length;

    let allowed = false;
    const status: StatusIntent = {
      expectedMachines: targets.length,
      currentHealthy: healthy,
      targets: targets.map((t) => t.machine.metadata.name!).sort(),
      conditions: [paused],
      observed: true,
    };
    try {
      const decision = decideRemediationAllowed(mhc.spec, targets.length, healthy);
      if (decision.allowed && mhc.spec.remediation?.templateRef) {
        // Upstream would create external remediation requests from the template; never fall back to owner remediation.
        decision.allowed = false;
        decision.remediationsAllowed = 0;
        decision.message = `spec.remediation.templateRef ${mhc.spec.remediation.templateRef.kind} ${mhc.spec.remediation.templateRef.name} is set, but external remediation is not implemented: Machines are marked only`;
      }
      allowed = decision.allowed;
      status.remediationsAllowed = decision.remediationsAllowed;
      status.conditions.push(
        decision.allowed
          ? { type: REMEDIATION_ALLOWED_CONDITION, status: 'True', reason: REMEDIATION_ALLOWED_REASON }
          : {
              type: REMEDIATION_ALLOWED_CONDITION,
              status: 'False',
              reason: mhc.spec.remediation?.templateRef
                ? EXTERNAL_REMEDIATION_NOT_SUPPORTED_REASON
                : TOO_MANY_UNHEALTHY_REASON,
              message: decision.message,
            },
      );
      if (!decision.allowed && healths.some((h) => h.state === 'Unhealthy'))
        ctx.log.warn(decision.message ?? 'remediation not allowed');
    } catch (e) {
      if (!(e instanceof RemediationTriggerError)) throw e;
      status.remediationsAllowed = 0;
      status.conditions.push({
        type: REMEDIATION_ALLOWED_CONDITION,
        status: 'False',
        reason: INVALID_REMEDIATION_TRIGGER_REASON,
        message: `spec.remediation.triggerIf is invalid: ${e.message}`,
      });
    }

    const errors = await this.markMachines(ctx.log, targets, healths, allowed);
    await this.applyStatus(mhc, { ...status, observed: errors.length === 0 });
    if (errors.length) throw new Error(errors.join('; '));
    return this.requeue(targets, healths);
  }

  private requeue(targets: Target[], healths: TargetHealth[]): Result | void {
    const delays = healths.map((h) => ('nextCheckMs' in h ? h.nextCheckMs : undefined));
    // No Node watch on workload clusters: poll while some target has a Node.
    if (targets.some((t) => t.node)) delays.push(this.options.nodePollIntervalMs ?? DEFAULT_NODE_POLL_MS);
    const positive = delays.filter((d): d is number => d !== undefined && d > 0);
    return positive.length ? { requeueAfterMs: Math.min(...positive) } : undefined;
  }

  private async workloadClient(mhc: MachineHealthCheckObject, cluster: ClusterObject): Promise<Client | undefined> {
    // Like upstream, Nodes are read only once the control plane is initialized.
    if (!isControlPlaneInitialized(cluster)) return undefined;
    return this.workloadClients({ namespace: mhc.metadata.namespace!, name: mhc.spec.clusterName });
  }

  private async markMachines(
    log: ReconcileLogger,
    targets: Target[],
    healths: TargetHealth[],
    remediationAllowed: boolean,
  ): Promise<string[]> {
    const errors: string[] = [];
    for (let i = 0; i < targets.length; i++) {
      const machine = targets[i].machine;
      const marking = decideMachineMarking(machine, healths[i], {
        remediationAllowed,
        clusterPaused: false,
        clock: this.clock,
      });
      if (!marking.changed) continue;
      try {
        await this.client.apply(
          {
            apiVersion: MachineGVK.apiVersion,
            kind: 'Machine',
            metadata: { name: machine.metadata.name, namespace: machine.metadata.namespace, uid: machine.metadata.uid },
            status: { conditions: marking.conditions },
          },
          { fieldManager: MHC_FIELD_MANAGER, force: true, subresource: 'status' },
        );
        if (marking.remediationRequested)
          log.log(
            `Machine ${machine.metadata.namespace}/${machine.metadata.name} marked unhealthy, waiting for remediation by its owner`,
          );
      } catch (e) {
        errors.push(
          `failed to patch Machine ${machine.metadata.namespace}/${machine.metadata.name} status: ${(e as Error).message}`,
        );
      }
    }
    return errors;
  }

  /** cluster-name label and Cluster ownerReference on the MHC (upstream does it on every reconcile). */
  private async ensureMetadata(mhc: MachineHealthCheckObject, cluster: ClusterObject): Promise<void> {
    const hasLabel = mhc.metadata.labels?.[CLUSTER_NAME_LABEL] === mhc.spec.clusterName;
    const hasOwner = mhc.metadata.ownerReferences?.some((o) => o.kind === 'Cluster' && o.uid === cluster.metadata.uid);
    if (hasLabel && hasOwner) return;
    const intent: KubeObject = {
      apiVersion: MachineHealthCheckGVK.apiVersion,
      kind: 'MachineHealthCheck',
      metadata: {
        name: mhc.metadata.name,
        namespace: mhc.metadata.namespace,
        uid: mhc.metadata.uid,
        labels: { [CLUSTER_NAME_LABEL]: mhc.spec.clusterName },
        ownerReferences: [
          {
            apiVersion: ClusterGVK.apiVersion,
            kind: 'Cluster',
            name: cluster.metadata.name!,
            uid: cluster.metadata.uid!,
          },
        ],
      },
    };
    await this.ssa.patch(this.client, intent, {
      fieldOwner: MHC_FIELD_MANAGER,
      original: mhc,
      controllerName: MHC_CONTROLLER_NAME,
    });
  }

  private async applyStatus(mhc: MachineHealthCheckObject, intent: StatusIntent): Promise<void> {
    const current = mhc.status ?? {};
    let conditions: Condition[] = current.conditions ?? [];
    for (const c of intent.conditions)
      conditions = setCondition(conditions, { ...c, observedGeneration: mhc.metadata.generation }, this.clock);
    const owned = new Set(intent.conditions.map((c) => c.type));
    const status: Record<string, unknown> = { conditions: conditions.filter((c) => owned.has(c.type)) };
    for (const k of ['expectedMachines', 'currentHealthy', 'remediationsAllowed', 'targets'] as const)
      if (intent[k] !== undefined) status[k] = intent[k];
    const observedGeneration = intent.observed ? mhc.metadata.generation : current.observedGeneration;
    if (observedGeneration !== undefined) status.observedGeneration = observedGeneration;
    if (this.statusUnchanged(current as Record<string, unknown>, status)) return;
    await this.client.apply(
      {
        apiVersion: MachineHealthCheckGVK.apiVersion,
        kind: 'MachineHealthCheck',
        metadata: { name: mhc.metadata.name, namespace: mhc.metadata.namespace, uid: mhc.metadata.uid },
        status,
      },
      { fieldManager: MHC_FIELD_MANAGER, force: true, subresource: 'status' },
    );
  }

  private statusUnchanged(current: Record<string, unknown>, next: Record<string, unknown>): boolean {
    for (const [k, v] of Object.entries(next)) {
      if (k === 'conditions') {
        const cur = (current.conditions as Condition[] | undefined) ?? [];
        if (
          (v as Condition[]).some(
            (c) =>
              !jsonEqual(
                c,
                cur.find((x) => x.type === c.type),
              ),
          )
        )
          return false;
      } else if (!jsonEqual(current[k], v)) return false;
    }
    return true;
  }
}
