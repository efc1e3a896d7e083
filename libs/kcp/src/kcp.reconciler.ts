// KubeadmControlPlane controller (upstream controlplane/kubeadm/internal/controllers): reads state, asks the pure
// functions in decide.ts / uptodate.ts / status.ts what to do, and writes with SSA.
import { Inject, Optional } from '@nestjs/common';
import { indexMachines } from '@capi/index';
import {
  CLUSTER_API_VERSION,
  ClusterGVK,
  CONTROLPLANE_API_VERSION,
  KUBEADM_CONTROL_PLANE_FINALIZER,
  PAUSED_ANNOTATION,
  type Cluster,
  type KubeadmControlPlane,
} from '@capi/api';
import type { PassiveClock } from '@capi/apimachinery';
import {
  CACHE,
  CACHED_CLIENT,
  SECRET_CACHING_CLIENT,
  FEATURE_GATES,
  FeatureGates,
  KUBE_CLIENT,
  ReconcilerFor,
  type Client,
  type InformerCache,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { ContractVersionResolver } from '@capi/external';
import { RUNTIME_CLIENT, type RuntimeClient } from '@capi/runtime-client';
import { ServerSideApplier } from '@capi/ssa';
import { reconcileClusterCertificates, withCondition } from './certificates';
import { IN_PLACE_ONLY_RECHECK_MS, KCP_CONTROLLER_NAME, PREFLIGHT_DEFER_MS, PREFLIGHT_REQUEUE_MS } from './constants';
import { failureDomainForScaleUp, planReconcile, type ControlPlaneMachine, type KcpAction } from './decide';
import { observeControlPlane, type ControlPlaneObservation } from './control-plane-view';
import { reconcileEtcdMembers } from './etcd-members-io';
import { ApiEventRecorder, refOf, type EventRecorder } from '@capi/controller-runtime';
import { canUpdateMachine, triggerInPlaceUpdate, type InPlaceDeps } from './inplace';
import { tryInPlaceUpdate, type TryInPlaceOutcome } from './try-inplace';
import { blockedRolloutOf, kcpRolloutBlocked } from './in-place-only';
import { blocksReplacements, rolloutPolicyOf } from '@capi/inplace';
import {
  createMachine,
  getInfraMachine,
  getInfraTemplate,
  getKubeadmConfig,
  listControlPlaneMachines,
  type MachineIo,
} from './machines';
import { KCP_CONTROLLER_OPTIONS, type KcpControllerOptions } from './options';
import { decidePreTerminateHook } from './pre-terminate';
import { forwardEtcdLeadershipBeforeDelete, preTerminateInput, reconcilePreTerminateHook } from './pre-terminate-io';
import { createReplacementOrMachine, reconcileUnhealthyMachines } from './remediation-step';
import {
  invalidMachineNaming,
  preflight,
  scaleDown,
  waitingForPreflight,
  type ScaleStep,
  type StepOutcome,
} from './scale-step';
import { writeKcpStatus, writeKcpStatusInfraTemplateNotFound } from './status-io';
import { isNotFoundCause, syncMachines } from './sync-machines';
import { upToDate, type NotUpToDateResult } from './uptodate';
import { controlPlaneFailureDomains } from './failure-domains';
import { clusterPausedTransitionsOrInfrastructureProvisioned } from '@capi/predicates';
import { getOwningCluster, kcpRequestsForCluster } from './owning-cluster';
import { reconcileKcpDelete } from './deletion-io';
import { KCP_WORKLOAD_CLUSTER_PROVIDER, type WorkloadClusterProvider } from './workload-cluster';
import { upkeepBeforeRollout, upkeepStableControlPlane } from './workload-upkeep-io';

const KCP = { apiVersion: CONTROLPLANE_API_VERSION, kind: 'KubeadmControlPlane' };

/** One reconcile's I/O (the shared handles with its context's controller), its logger and preflight timings. */
interface Run extends ScaleStep {
  inPlace: InPlaceDeps;
  /** CertificatesAvailable is True this reconcile (a scale up needs it). */
  certificatesAvailable?: boolean;
}

@ReconcilerFor({
  name: KCP_CONTROLLER_NAME,
  for: KCP,
  owns: [{ apiVersion: CLUSTER_API_VERSION, kind: 'Machine' }],
  // As upstream's kubeadmcontrolplane_controller.go: a Cluster's pause flip or its infrastructure becoming provisioned,
  // not each of its status writes.
  watches: [
    {
      apiVersion: ClusterGVK.apiVersion,
      kind: 'Cluster',
      map: (c) => kcpRequestsForCluster(c as Cluster),
      predicates: [clusterPausedTransitionsOrInfrastructureProvisioned],
    },
  ],
  maxConcurrentReconciles: 4,
})
export class KubeadmControlPlaneReconciler implements Reconciler {
  private readonly io: MachineIo;
  private readonly inPlace: InPlaceDeps;
  private readonly now: () => number;
  private readonly preflightRequeueMs: number;
  private readonly preflightDeferMs: number;
  private readonly inPlaceOnlyRecheckMs: number;

  constructor(
    @Inject(CACHED_CLIENT) private readonly client: Client,
    @Inject(KUBE_CLIENT) directClient: Client,
    @Inject(FEATURE_GATES) private readonly gates: FeatureGates,
    @Inject(KCP_WORKLOAD_CLUSTER_PROVIDER) private readonly workloads: WorkloadClusterProvider,
    // Without SsaModule in the app, a private applier (own request cache) is used.
    @Optional() @Inject(ServerSideApplier) applier?: ServerSideApplier,
    @Optional() @Inject(CACHE) cache?: InformerCache,
    @Optional() @Inject(RUNTIME_CLIENT) runtimeClient?: RuntimeClient,
    @Optional() @Inject(KCP_CONTROLLER_OPTIONS) options: KcpControllerOptions = {},
    // Cluster certificates are looked up here first (upstream LookupCached); without it, through `client`.
    @Optional() @Inject(SECRET_CACHING_CLIENT) private readonly secretCachingClient?: Client,
  ) {
    this.now = options.clock ? () => options.clock!.now() : Date.now;
    this.preflightRequeueMs = options.preflightRequeueMs ?? PREFLIGHT_REQUEUE_MS;
    this.preflightDeferMs = options.preflightDeferMs ?? PREFLIGHT_DEFER_MS;
    this.inPlaceOnlyRecheckMs = options.inPlaceOnlyRecheckMs ?? IN_PLACE_ONLY_RECHECK_MS;
    applier ??= new ServerSideApplier();
    if (cache) indexMachines(cache);
    this.io = { client, applier, resolver: new ContractVersionResolver(directClient) };
    const events: EventRecorder = new ApiEventRecorder(
      client,
      'kubeadmcontrolplane-controller',
      () => new Date(this.now()),
    );
    this.inPlace = { client, applier, runtimeClient, events };
  }

  private get clock(): PassiveClock {
    return { now: this.now };
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const run: Run = {
      io: { ...this.io, controller: ctx.controller },
      inPlace: { ...this.inPlace, controller: ctx.controller },
      log: ctx.log,
      preflightRequeueMs: this.preflightRequeueMs,
      preflightDeferMs: this.preflightDeferMs,
    };
    const kcp = await this.client.tryGet<KubeadmControlPlane>({ ...KCP, ...req });
    if (!kcp) {
      ctx.controller?.clearConsistencyStore(req); // upstream kubeadmcontrolplane_controller.go Reconcile
      return;
    }
    const cluster = await getOwningCluster(this.client, kcp);
    if (!cluster) {
      run.log.log('waiting for the owning Cluster');
      return;
    }
    if (cluster.spec?.paused || PAUSED_ANNOTATION in (kcp.metadata.annotations ?? {})) return;
    if (kcp.metadata.deletionTimestamp)
      return reconcileKcpDelete(
        { ...run, clock: this.clock, events: this.inPlace.events, requeueAfterMs: this.preflightRequeueMs },
        kcp,
        cluster,
      );
    if (!kcp.metadata.finalizers?.includes(KUBEADM_CONTROL_PLANE_FINALIZER)) {
      await this.client.patch(refOf(kcp), 'merge', {
        metadata: { finalizers: [...(kcp.metadata.finalizers ?? []), KUBEADM_CONTROL_PLANE_FINALIZER] },
      });
    }
    if (!cluster.status?.initialization?.infrastructureProvisioned) {
      run.log.log('waiting for Cluster infrastructure to be provisioned');
      return;
    }
    const certificates = await reconcileClusterCertificates(this.client, kcp, cluster, this.secretCachingClient);
    if (certificates.error) {
      const conditions = withCondition(kcp, certificates.condition, this.clock);
      await this.client.patch(refOf(kcp), 'merge', { status: { conditions } }, { subresource: 'status' });
      throw certificates.error;
    }
    run.certificatesAvailable = certificates.condition.status === 'True';
    const clusterName = cluster.metadata.name!;
    const template = await getInfraTemplate(run.io, kcp);
    if (!template) {
      const status = { kcp, clusterName, cluster, certificatesCondition: certificates.condition };
      await writeKcpStatusInfraTemplateNotFound(run.io, this.clock, status);
      throw new Error(
        `${kcp.spec.machineTemplate.spec.infrastructureRef.kind} ${kcp.metadata.namespace}/${kcp.spec.machineTemplate.spec.infrastructureRef.name} not found`,
      );
    }

    const listed = await listControlPlaneMachines(run.io, kcp, clusterName);
    const objects = await Promise.all(
      listed.map(async (machine) => {
        const [kubeadmConfig, infraMachine] = await Promise.all([
          getKubeadmConfig(run.io, machine),
          getInfraMachine(run.io, machine),
        ]);
        return { machine, kubeadmConfig, infraMachine };
      }),
    );
    // Before any decision, as upstream: in-place mutable fields reach the existing Machines (and their objects), and
    // the rest of the reconcile (the in-place trigger included) works on the Machines as written.
    let machines = listed;
    let syncError: unknown;
    try {
      machines = await syncMachines(run.io, kcp, clusterName, objects);
    } catch (e) {
      syncError = e;
    }
    const now = new Date(this.now());
    const results = new Map<string, { upToDate: boolean; result: NotUpToDateResult }>();
    // Paired by name: syncMachines returns the Machines as written, which need not keep the listed order.
    const objectsByName = new Map(objects.map((o) => [o.machine.metadata.name!, o]));
    for (const machine of machines) {
      const { kubeadmConfig, infraMachine } = objectsByName.get(machine.metadata.name!) ?? {};
      results.set(
        machine.metadata.name!,
        upToDate({ kcp, clusterName, machine, kubeadmConfig, infraMachine, infraTemplate: template, now }),
      );
    }
    const observed = await observeControlPlane(this.workloads, cluster, kcp, machines, results);
    const { view } = observed;

    let outcome: StepOutcome = {};
    let stepError: unknown;
    let preTerminate: Result | undefined;
    try {
      const action = planReconcile(
        kcp,
        view,
        this.gates.enabled('InPlaceUpdates'),
        controlPlaneFailureDomains(cluster),
        blocksReplacements(rolloutPolicyOf(kcp)),
      );
      // Upstream order: etcd members without a Machine go before anything else is done.
      const etcdStep = syncError ? undefined : await reconcileEtcdMembers(observed, run.log);
      if (syncError) {
        // A Machine or one of its objects went away: no requeue, the Machine change brings the next reconcile.
        if (!isNotFoundCause(syncError))
          throw new Error(`failed to sync Machines: ${(syncError as Error).message}`, { cause: syncError });
        run.log.log(`${(syncError as Error).message}; waiting for the updated list of Machines`);
      } else if (etcdStep) outcome = { result: etcdStep };
      else if ((preTerminate = await this.reconcilePreTerminateHook(run, kcp, cluster, observed))) {
        outcome = { result: preTerminate };
      } else if (action.type === 'completeInPlaceTrigger') {
        // Before remediation, like upstream: a half-triggered update is finished before anything else.
        outcome = await this.runAction(run, action, kcp, clusterName, template, observed, results, cluster);
      } else {
        // Remediation next; when it deleted a Machine, the replacement comes from a later reconcile's scale up.
        const remediation = await reconcileUnhealthyMachines(
          {
            ...run,
            clock: this.clock,
            forwardEtcdLeadership: (m) => forwardEtcdLeadershipBeforeDelete(kcp, observed, m, run.log),
          },
          kcp,
          view,
        );
        outcome = remediation.deleted
          ? { result: { requeueAfterMs: this.preflightRequeueMs } }
          : await this.runAction(run, action, kcp, clusterName, template, observed, results, cluster);
        // A waiting remediation is looked at again even when nothing else changes (Node readiness is not watched).
        if (remediation.recheck && !outcome.result)
          outcome = { ...outcome, result: { requeueAfterMs: this.preflightRequeueMs } };
      }
    } catch (e) {
      stepError = e;
    }
    // Workload cluster health is not watched: look again while it is not healthy, so it recovers without an event.
    if (!outcome.result && observed.kcpHealth.some((c) => c.status !== 'True'))
      outcome = { ...outcome, result: { requeueAfterMs: this.preflightRequeueMs } };
    await writeKcpStatus(run.io, this.clock, {
      kcp,
      clusterName,
      results,
      observed,
      certificatesCondition: certificates.condition,
      cluster,
      preflight: outcome.preflight,
      scalingUpBlockers: outcome.scalingUpBlockers,
      rolloutBlocked: kcpRolloutBlocked(
        rolloutPolicyOf(kcp),
        outcome.blocked,
        [...results.values()].some((r) => !r.upToDate),
      ),
    });
    if (stepError) throw stepError;
    return outcome.result;
  }

  /** Deleting Machines first (upstream reconcilePreTerminateHook): etcd member removal, then KCP's hook goes. */
  private reconcilePreTerminateHook(
    run: Run,
    kcp: KubeadmControlPlane,
    cluster: Cluster,
    observed: ControlPlaneObservation,
  ): Promise<Result | undefined> {
    const decision = decidePreTerminateHook(preTerminateInput(kcp, observed));
    return reconcilePreTerminateHook(
      { client: this.client, workloads: this.workloads, log: run.log },
      cluster,
      decision,
    );
  }

  private async runAction(
    run: Run,
    action: KcpAction,
    kcp: KubeadmControlPlane,
    clusterName: string,
    template: Parameters<typeof createMachine>[3],
    observed: ControlPlaneObservation,
    results: Map<string, { upToDate: boolean; result: NotUpToDateResult }>,
    cluster: Cluster,
  ): Promise<StepOutcome> {
    const { view, etcdManaged } = observed;
    const byName = (n: string) => view.find((m) => m.machine.metadata.name === n)!.machine;
    if ((action.type === 'scaleUp' && action.rollout) || action.type === 'rolloutMachine')
      await upkeepBeforeRollout(this.workloads, cluster, kcp, etcdManaged, run.log);
    switch (action.type) {
      case 'none':
        await upkeepStableControlPlane(this.workloads, cluster, kcp, run.log);
        return {};
      case 'initialize': {
        const naming = invalidMachineNaming(run, kcp);
        if (naming) return naming;
        const m = await createReplacementOrMachine(
          run,
          kcp,
          clusterName,
          template,
          false,
          this.failureDomain(cluster, []),
        );
        run.log.log(`initialized control plane with Machine ${m.metadata.name}`);
        return {};
      }
      case 'completeInPlaceTrigger':
        for (const name of action.machines)
          await triggerInPlaceUpdate(run.inPlace, kcp, byName(name), results.get(name)!.result, run.log);
        return {};
      case 'waitForInPlaceUpdate':
        // No requeue: the Machine changes when its update completes, and Machines are watched.
        for (const name of action.machines) run.log.log(`waiting for in-place update of Machine ${name} to complete`);
        return {};
      case 'scaleUp': {
        const naming = invalidMachineNaming(run, kcp);
        if (naming) return naming;
        const pre = preflight(run, kcp, view, undefined, etcdManaged, {
          certificatesAvailable: run.certificatesAvailable === true,
        });
        if (!pre.ok) return waitingForPreflight(run, pre.messages, pre.results);
        const m = await createReplacementOrMachine(
          run,
          kcp,
          clusterName,
          template,
          true,
          this.failureDomain(cluster, view),
        );
        run.log.log(`scaled up with Machine ${m.metadata.name}${action.rollout ? ' (rollout)' : ''}`);
        return {};
      }
      case 'rolloutMachine': {
        const machine = byName(action.machine);
        const r = results.get(action.machine)!.result;
        let fallback: TryInPlaceOutcome | undefined;
        if (action.tryInPlace) {
          const outcome = await tryInPlaceUpdate(view, action.machine, etcdManaged, {
            preflight: (ignore) => preflight(run, kcp, view, ignore, etcdManaged),
            canUpdateMachine: () => canUpdateMachine(run.inPlace, r, this.gates.enabled('InPlaceUpdates')),
            triggerInPlaceUpdate: async (updaters) =>
              void (await triggerInPlaceUpdate(run.inPlace, kcp, machine, r, run.log, updaters)),
          });
          if (outcome.type === 'triggered') return { blocked: [] };
          if (outcome.type === 'wait') return waitingForPreflight(run, outcome.messages, outcome.results);
          if (outcome.reasons)
            run.log.log(
              `Machine ${machine.metadata.namespace}/${machine.metadata.name} cannot be updated in-place by extensions: ${outcome.reasons.join(',')}`,
            );
          fallback = outcome;
        }
        if (action.inPlaceOnly) {
          // InPlaceOnly policy: not deleted; asked again later (an updater can change its answer unseen).
          const blocked = blockedRolloutOf(machine, r, fallback, this.gates.enabled('InPlaceUpdates'));
          run.log.log(`rollout of Machine ${machine.metadata.name} held back by the InPlaceOnly rollout policy`);
          return { blocked: [blocked], result: { requeueAfterMs: this.inPlaceOnlyRecheckMs } };
        }
        return scaleDown(run, kcp, machine, observed);
      }
      case 'scaleDown':
        return scaleDown(run, kcp, byName(action.machine), observed);
    }
  }

  private failureDomain(cluster: Cluster, machines: ControlPlaneMachine[]): string | undefined {
    return failureDomainForScaleUp(controlPlaneFailureDomains(cluster), machines);
  }
}
