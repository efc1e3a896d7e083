// canUpdateMachineSetInPlace behind the rollout planner (spec §7.3; upstream machinedeployment_canupdatemachineset.go):
// fetch both MachineSets' templates, ask the CanUpdateMachineSet extensions through the coverage check, and remember
// the answer per "<oldMS ns/name> => <newMS ns/name>" for a TTL, so each pair costs one extension call.
import { Logger } from '@nestjs/common';
import { CLUSTER_API_VERSION, reduceObjectForHook, type CanUpdateMachineSetRequest, type HookObject, type MachineSet } from '@capi/api';
import type { Client } from '@capi/controller-runtime';
import { canExtensionsUpdate, type CoverageRuntimeClient } from '@capi/inplace';
import type { ContractVersionResolver } from '@capi/machine';
import { TtlCache } from '../shared/ttl-cache';
import { getReferenced, type VersionedRef } from '../shared/writes';

export const DEFAULT_CAN_UPDATE_CACHE_TTL_MS = 5 * 60_000;
const HOOKS_API_VERSION = 'hooks.runtime.cluster.x-k8s.io/v1alpha1';

export interface MachineSetInPlaceCheckerDeps {
  client: Client;
  resolver: ContractVersionResolver;
  /** Absent: nothing can be updated in place. */
  runtimeClient?: CoverageRuntimeClient;
  now?: () => number;
  ttlMs?: number;
}

export const canUpdateCacheKey = (oldMS: MachineSet, newMS: MachineSet): string =>
  `${oldMS.metadata.namespace}/${oldMS.metadata.name} => ${newMS.metadata.namespace}/${newMS.metadata.name}`;

export class MachineSetInPlaceChecker {
  private readonly log = new Logger('MachineSetInPlaceChecker');
  private readonly cache: TtlCache<boolean>;

  constructor(private readonly deps: MachineSetInPlaceCheckerDeps) {
    this.cache = new TtlCache(deps.ttlMs ?? DEFAULT_CAN_UPDATE_CACHE_TTL_MS, deps.now ?? Date.now);
  }

  /** True when the extensions cover every change from oldMS to newMS. Extension errors are thrown (reconcile error). */
  async canUpdate(oldMS: MachineSet, newMS: MachineSet): Promise<boolean> {
    const key = canUpdateCacheKey(oldMS, newMS);
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;

    const request = await this.buildRequest(oldMS, newMS);
    if (!request) return false;
    if (!this.deps.runtimeClient) {
      this.log.log(`${key}: no runtime client, cannot update in place`);
      return false;
    }
    const result = await canExtensionsUpdate({ hook: 'CanUpdateMachineSet', runtimeClient: this.deps.runtimeClient, forObject: oldMS, request });
    if (!result.canUpdate) this.log.log(`${key}: cannot update in place: ${result.reasons.join(',')}`);
    this.cache.set(key, result.canUpdate);
    return result.canUpdate;
  }

  /** The request, or undefined when a template is missing (or present on one side only): no in-place then. */
  private async buildRequest(oldMS: MachineSet, newMS: MachineSet): Promise<CanUpdateMachineSetRequest | undefined> {
    const ns = oldMS.metadata.namespace;
    const get = (ref: VersionedRef) => getReferenced(this.deps.client, this.deps.resolver, ref, ns);
    const [currentInfra, desiredInfra] = await Promise.all([get(oldMS.spec.template.spec.infrastructureRef), get(newMS.spec.template.spec.infrastructureRef)]);
    if (!currentInfra || !desiredInfra) return undefined;
    const currentBootstrapRef = oldMS.spec.template.spec.bootstrap?.configRef;
    const desiredBootstrapRef = newMS.spec.template.spec.bootstrap?.configRef;
    if (!!currentBootstrapRef !== !!desiredBootstrapRef) return undefined;
    let currentBootstrap: HookObject | undefined;
    let desiredBootstrap: HookObject | undefined;
    if (currentBootstrapRef && desiredBootstrapRef) {
      const [c, d] = await Promise.all([get(currentBootstrapRef), get(desiredBootstrapRef)]);
      if (!c || !d) return undefined;
      currentBootstrap = reduceObjectForHook(c) as HookObject;
      desiredBootstrap = reduceObjectForHook(d) as HookObject;
    }
    const msGvk = { apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet' };
    return {
      apiVersion: HOOKS_API_VERSION,
      kind: 'CanUpdateMachineSetRequest',
      current: {
        machineSet: reduceObjectForHook(oldMS, msGvk) as HookObject,
        infrastructureMachineTemplate: reduceObjectForHook(currentInfra) as HookObject,
        ...(currentBootstrap ? { bootstrapConfigTemplate: currentBootstrap } : {}),
      },
      desired: {
        machineSet: reduceObjectForHook(newMS, msGvk) as HookObject,
        infrastructureMachineTemplate: reduceObjectForHook(desiredInfra) as HookObject,
        ...(desiredBootstrap ? { bootstrapConfigTemplate: desiredBootstrap } : {}),
      },
    };
  }
}
