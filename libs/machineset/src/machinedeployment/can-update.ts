// canUpdateMachineSetInPlace behind the rollout planner (upstream
// core/reconcilers/machinedeployment/machinedeployment_canupdatemachineset.go): fetch both MachineSets' templates (a
// missing one is an error), list the CanUpdateMachineSet extensions, then consult the answer remembered per "<oldMS
// ns/name> => <newMS ns/name>" (24 h) before asking the extensions through the coverage check, so each pair costs one
// extension call.
import { Logger } from '@nestjs/common';
import {
  CLUSTER_API_VERSION,
  reduceObjectForHook,
  type CanUpdateMachineSetRequest,
  type HookObject,
  type MachineSet,
} from '@capi/api';
import { LRUExpireCache } from '@capi/apimachinery';
import type { Client, ReconcileLogger } from '@capi/controller-runtime';
import { canExtensionsUpdate, type CoverageRuntimeClient, type UncoveredFields } from '@capi/inplace';
import { getReferenced, type ContractVersionedRef, type ContractVersionResolver } from '@capi/external';

/** Upstream's CanUpdateMachineSet cache TTL: MS names change with their templates, so a pair's answer does not go stale. */
export const DEFAULT_CAN_UPDATE_CACHE_TTL_MS = 24 * 60 * 60_000;
/** Answers kept, one per (old, new) MachineSet pair of a rollout; beyond it the oldest is asked for again. */
const CAN_UPDATE_CACHE_MAX_ENTRIES = 10_000;
const HOOKS_API_VERSION = 'hooks.runtime.cluster.x-k8s.io/v1alpha1';

export interface MachineSetInPlaceCheckerDeps {
  client: Client;
  resolver: ContractVersionResolver;
  /** Absent: nothing can be updated in place. */
  runtimeClient?: CoverageRuntimeClient;
  now?: () => number;
  ttlMs?: number;
}

/** A template a MachineSet references does not exist: the MachineDeployment reconcile fails (and retries). */
export class TemplateNotFoundError extends Error {
  readonly reason = 'TemplateNotFound';
  constructor(message: string) {
    super(message);
    this.name = 'TemplateNotFoundError';
  }
}

/** One oldMS -> newMS answer, with what the in-place-only policy reports when it is "no". */
export interface MachineSetCoverage {
  canUpdate: boolean;
  /** ExtensionConfigs whose patches made up the accepted change (canUpdate only). */
  updaters: string[];
  /** No CanUpdateMachineSet handler registered (or no runtime client). */
  noUpdaters: boolean;
  /** What stays uncovered (not canUpdate). */
  uncovered: UncoveredFields[];
  /** Handlers asked, in call order. */
  asked: string[];
  /** Why not in place, as sentences (the coverage check's "<Kind> cannot be updated in-place: ..." lines). */
  reasons: string[];
}

export interface CoverageOptions {
  /**
   * Ask again instead of using a remembered "no" (the in-place-only policy: a blocked rollout must see a changed
   * updater at its next reconcile, not after the 24 h TTL). A remembered "yes" is still used.
   */
  refreshNo?: boolean;
}

const NO_UPDATERS: MachineSetCoverage = {
  canUpdate: false,
  updaters: [],
  noUpdaters: true,
  uncovered: [],
  asked: [],
  reasons: ['no CanUpdateMachineSet extension is registered'],
};

export const canUpdateCacheKey = (oldMS: MachineSet, newMS: MachineSet): string =>
  `${oldMS.metadata.namespace}/${oldMS.metadata.name} => ${newMS.metadata.namespace}/${newMS.metadata.name}`;

export class MachineSetInPlaceChecker {
  private readonly log = new Logger('MachineSetInPlaceChecker');
  private readonly cache: LRUExpireCache<MachineSetCoverage>;
  private readonly ttlMs: number;

  constructor(private readonly deps: MachineSetInPlaceCheckerDeps) {
    this.ttlMs = deps.ttlMs ?? DEFAULT_CAN_UPDATE_CACHE_TTL_MS;
    this.cache = new LRUExpireCache({ max: CAN_UPDATE_CACHE_MAX_ENTRIES, clock: deps.now && { now: deps.now } });
  }

  /**
   * True when the extensions cover every change from oldMS to newMS. A missing template and extension errors are
   * thrown (reconcile error); a bootstrap template on one side only, or no extension, is "no". Logs to `log` (the
   * MachineDeployment reconcile's) when given.
   */
  async canUpdate(
    oldMS: MachineSet,
    newMS: MachineSet,
    log: Pick<ReconcileLogger, 'log'> = this.log,
  ): Promise<boolean> {
    return (await this.coverage(oldMS, newMS, log)).canUpdate;
  }

  /** canUpdate with the details: which updaters were asked and which fields stay uncovered. */
  async coverage(
    oldMS: MachineSet,
    newMS: MachineSet,
    log: Pick<ReconcileLogger, 'log'> = this.log,
    options: CoverageOptions = {},
  ): Promise<MachineSetCoverage> {
    const key = canUpdateCacheKey(oldMS, newMS);
    const request = await this.buildRequest(oldMS, newMS);
    if (!request)
      return {
        canUpdate: false,
        updaters: [],
        noUpdaters: false,
        uncovered: [{ object: 'MachineSet', fields: ['spec.template.spec.bootstrap.configRef'] }],
        asked: [],
        reasons: ['a bootstrap config template is set on one MachineSet only'],
      };
    const runtimeClient = this.deps.runtimeClient;
    if (!runtimeClient) {
      log.log(`${key}: no runtime client, cannot update in place`);
      return NO_UPDATERS;
    }
    // Listed before the cache is read, like upstream: with no extension registered (any more), nothing is in place.
    const extensions = await runtimeClient.getAllExtensions('CanUpdateMachineSet', oldMS);
    if (extensions.length === 0) return NO_UPDATERS;
    const cached = this.cache.get(key);
    if (cached !== undefined && (cached.canUpdate || !options.refreshNo)) return cached;

    const listed: CoverageRuntimeClient = {
      getAllExtensions: async () => extensions,
      callExtension: (...args) => runtimeClient.callExtension(...args),
    };
    const result = await canExtensionsUpdate({
      hook: 'CanUpdateMachineSet',
      runtimeClient: listed,
      forObject: oldMS,
      request,
    });
    if (!result.canUpdate) log.log(`${key}: cannot update in place: ${result.reasons.join(',')}`);
    const answer: MachineSetCoverage = {
      canUpdate: result.canUpdate,
      updaters: result.contributors,
      noUpdaters: false,
      uncovered: result.uncovered,
      asked: result.extensions,
      reasons: result.reasons,
    };
    this.cache.add(key, answer, this.ttlMs);
    return answer;
  }

  /**
   * The updaters (ExtensionConfigs) whose patches made up the accepted oldMS -> newMS change, as remembered from the
   * last canUpdate; undefined when not known (not asked yet, expired, or not in place).
   */
  acceptedUpdaters(oldMS: MachineSet, newMS: MachineSet): string[] | undefined {
    const cached = this.cache.get(canUpdateCacheKey(oldMS, newMS));
    return cached?.canUpdate ? cached.updaters : undefined;
  }

  /** The request, or undefined when a bootstrap template is set on one side only (no in-place then). */
  private async buildRequest(oldMS: MachineSet, newMS: MachineSet): Promise<CanUpdateMachineSetRequest | undefined> {
    const get = async (ms: MachineSet, ref: ContractVersionedRef, what: string) => {
      const obj = await getReferenced(this.deps.client, this.deps.resolver, ref, ms.metadata.namespace);
      if (!obj)
        throw new TemplateNotFoundError(
          `failed to get ${ref.kind || what} ${ms.metadata.namespace}/${ref.name} from MachineSet ${ms.metadata.name}: not found`,
        );
      return obj;
    };
    const currentInfra = await get(oldMS, oldMS.spec.template.spec.infrastructureRef, 'InfrastructureMachineTemplate');
    const desiredInfra = await get(newMS, newMS.spec.template.spec.infrastructureRef, 'InfrastructureMachineTemplate');
    const currentBootstrapRef = oldMS.spec.template.spec.bootstrap?.configRef;
    const desiredBootstrapRef = newMS.spec.template.spec.bootstrap?.configRef;
    let currentBootstrap: HookObject | undefined;
    let desiredBootstrap: HookObject | undefined;
    if (currentBootstrapRef)
      currentBootstrap = reduceObjectForHook(
        await get(oldMS, currentBootstrapRef, 'BootstrapConfigTemplate'),
      ) as HookObject;
    if (desiredBootstrapRef)
      desiredBootstrap = reduceObjectForHook(
        await get(newMS, desiredBootstrapRef, 'BootstrapConfigTemplate'),
      ) as HookObject;
    if (!!currentBootstrap !== !!desiredBootstrap) return undefined;
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
