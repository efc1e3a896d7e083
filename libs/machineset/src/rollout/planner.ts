// RolloutPlanner: pure planning state for one MachineDeployment reconcile (upstream: machinedeployment_rollout_planner.go).
// It never does I/O: the in-place decision and the "desired MachineSet" computation are injected.
import {
  computeRevisionAnnotations,
  findNewAndOldMachineSets,
  RolloutPlanError,
  specReplicas,
  statusReplicas,
  availableReplicas,
  upToDateReplicas,
  strategyType,
  UpToDateResult,
} from './mdutil';
import { MachineDeploymentLike, MachineLike, MachineSetLike, RolloutAnnotations, nameOf } from './types';
import { runOnDelete } from './ondelete';
import { rollingUpdateSteps, InPlaceQuery } from './rollingupdate';

export type CanUpdateMachineSetInPlace = (oldMS: MachineSetLike, newMS: MachineSetLike) => boolean | Promise<boolean>;

/** Returns the desired version of an existing MachineSet, or a brand-new one when currentMS is undefined. */
export type ComputeDesiredMachineSet = (
  md: MachineDeploymentLike,
  currentMS: MachineSetLike | undefined,
) => MachineSetLike;

export interface RolloutPlannerOptions {
  /** The InPlaceUpdates feature gate. Off: the predicate is never called and no move annotation is set. */
  inPlaceUpdatesEnabled?: boolean;
  /** Injected "can this old MS be updated in place into the new MS?" (e.g. backed by CanUpdateMachineSet). */
  canUpdateMachineSetInPlace?: CanUpdateMachineSetInPlace;
  /** Defaults to {@link defaultComputeDesiredMachineSet}. */
  computeDesiredMachineSet?: ComputeDesiredMachineSet;
  /** Clock used for spec.rollout.after. */
  now?: () => Date;
  /**
   * Old MachineSets whose Machines must not be replaced (this project's in-place-only rollout policy): they do not
   * scale down and the new MachineSet does not grow into their place. Unset (upstream): no step is added.
   */
  replacementsBlockedFor?: ReadonlySet<string>;
}

export interface MachineSetDiff {
  type: 'current' | 'old';
  hasOriginal: boolean;
  originalReplicas: number;
  desiredReplicas: number;
  summary: string;
  otherChanges: string;
  reason: string;
}

// Annotations the planner recomputes on every reconcile (they are not carried over from the current MS).
const PLANNER_MANAGED_ANNOTATIONS = [
  RolloutAnnotations.moveMachinesToMachineSet,
  RolloutAnnotations.receiveMachinesFromMachineSets,
  RolloutAnnotations.acknowledgedMove,
];

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * Default desired-MS computation: a copy of the current MS without the planner-managed move annotations,
 * or a new MS named `<md>-<random suffix>` carrying the MD template with 0 replicas.
 */
export function defaultComputeDesiredMachineSet(
  md: MachineDeploymentLike,
  currentMS: MachineSetLike | undefined,
): MachineSetLike {
  if (currentMS) {
    const copy = structuredClone(currentMS);
    const annotations = { ...(copy.metadata.annotations ?? {}) };
    for (const key of PLANNER_MANAGED_ANNOTATIONS) delete annotations[key];
    copy.metadata.annotations = annotations;
    return copy;
  }
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)];
  return {
    metadata: { name: `${nameOf(md)}-${suffix}`, namespace: md.metadata.namespace, annotations: {} },
    spec: { replicas: 0, template: structuredClone(md.spec.template) },
    status: { replicas: 0, availableReplicas: 0 },
  };
}

export class RolloutPlanner {
  md!: MachineDeploymentLike;
  machines: MachineLike[] = [];
  revision = '';
  /** Deep copies of the input MachineSets taken at the start of init, by name. */
  originalMSs = new Map<string, MachineSetLike>();
  newMS?: MachineSetLike;
  oldMSs: MachineSetLike[] = [];
  createReason = '';
  upToDateResults = new Map<string, UpToDateResult>();
  /** MS name -> desired spec.replicas. */
  scaleIntents = new Map<string, number>();
  /** MS name -> ordered, de-duplicated reasons. */
  notes = new Map<string, string[]>();
  acknowledgedMachineNames: string[] = [];
  updatingMachineNames: string[] = [];

  private readonly computeDesired: ComputeDesiredMachineSet;

  constructor(readonly options: RolloutPlannerOptions = {}) {
    this.computeDesired = options.computeDesiredMachineSet ?? defaultComputeDesiredMachineSet;
  }

  get inPlaceUpdatesEnabled(): boolean {
    return this.options.inPlaceUpdatesEnabled ?? false;
  }

  /** Identifies newMS/oldMSs, computes their desired state and creates the newMS when needed and allowed. */
  init(
    md: MachineDeploymentLike,
    msList: MachineSetLike[],
    machines: MachineLike[],
    createNewMSIfNotExist: boolean,
    templateExists: boolean,
  ): void {
    if (!md) throw new RolloutPlanError('machineDeployment is nil, this is unexpected');
    if (md.spec?.replicas === undefined || md.spec.replicas === null) {
      throw new RolloutPlanError(`spec.replicas for MachineDeployment ${md.metadata?.name} is nil, this is unexpected`);
    }
    const seen = new Set<string>();
    for (const ms of msList) {
      // Names key every decision (scale intents, notes, move annotations).
      if (!nameOf(ms)) throw new RolloutPlanError('MachineSet without metadata.name, this is unexpected');
      if (seen.has(nameOf(ms))) throw new RolloutPlanError(`duplicate MachineSet name ${nameOf(ms)}`);
      seen.add(nameOf(ms));
      if (ms.spec?.replicas === undefined || ms.spec.replicas === null) {
        throw new RolloutPlanError(`spec.replicas for MachineSet ${ms.metadata?.name} is nil, this is unexpected`);
      }
    }
    this.md = md;
    this.machines = machines;
    this.oldMSs = [];
    this.newMS = undefined;
    this.originalMSs = new Map(msList.map((ms) => [nameOf(ms), structuredClone(ms)]));

    const found = findNewAndOldMachineSets(md, msList, this.options.now?.() ?? new Date());
    this.upToDateResults = found.upToDateResults;
    for (const oldMS of found.oldMSs) this.oldMSs.push(this.computeDesiredOldMS(oldMS));

    if (found.newMS) {
      const oldRevision = found.newMS.metadata.annotations?.[RolloutAnnotations.revision] ?? '';
      this.newMS = this.computeDesiredNewMS(found.newMS);
      // A revision change means this MS (possibly an old one again) just became the current one.
      if (oldRevision !== this.revision) this.addNote(this.newMS, 'this is now the current MachineSet');
      return;
    }
    if (!createNewMSIfNotExist) return;
    if (!templateExists)
      throw new RolloutPlanError('cannot create a MachineSet when templates do not exist', 'TemplateNotFound');
    this.newMS = this.computeDesiredNewMS(undefined);
    this.createReason = found.createReason;
  }

  private computeDesiredNewMS(current: MachineSetLike | undefined): MachineSetLike {
    const desired = this.computeDesired(this.md, current);
    const { annotations, revision } = computeRevisionAnnotations(current, this.oldMSs);
    desired.metadata.annotations = { ...(desired.metadata.annotations ?? {}) };
    Object.assign(desired.metadata.annotations, annotations);
    this.revision = revision;
    // Machine creation is always allowed on the new MS.
    desired.metadata.annotations[RolloutAnnotations.disableMachineCreate] = 'false';
    return desired;
  }

  private computeDesiredOldMS(current: MachineSetLike): MachineSetLike {
    const desired = this.computeDesired(this.md, current);
    const annotations = desired.metadata.annotations ?? {};
    desired.metadata.annotations = annotations;
    // Old MachineSets keep their revision; they must not create machines with OnDelete (the user drives replacement).
    for (const key of [RolloutAnnotations.revision, RolloutAnnotations.revisionHistory]) {
      const v = current.metadata.annotations?.[key];
      if (v !== undefined) annotations[key] = v;
    }
    annotations[RolloutAnnotations.disableMachineCreate] = strategyType(this.md) === 'OnDelete' ? 'true' : 'false';
    return desired;
  }

  addNote(ms: MachineSetLike, note: string): void {
    const list = this.notes.get(nameOf(ms)) ?? [];
    if (!list.includes(note)) list.push(note);
    this.notes.set(nameOf(ms), list);
  }

  /** RollingUpdate plan; awaits the in-place predicate if it is asynchronous. */
  async planRollingUpdate(): Promise<void> {
    const steps = rollingUpdateSteps(this);
    let next = steps.next();
    while (!next.done) next = steps.next(await this.askInPlace(next.value));
  }

  /** RollingUpdate plan for a synchronous predicate; throws if the predicate returns a Promise. */
  planRollingUpdateSync(): void {
    const steps = rollingUpdateSteps(this);
    let next = steps.next();
    while (!next.done) {
      const answer = this.askInPlace(next.value);
      if (typeof answer !== 'boolean') {
        throw new RolloutPlanError(
          'canUpdateMachineSetInPlace returned a Promise; use planRollingUpdate() instead',
          'AsyncPredicate',
        );
      }
      next = steps.next(answer);
    }
  }

  private askInPlace(q: InPlaceQuery): boolean | Promise<boolean> {
    const predicate = this.options.canUpdateMachineSetInPlace;
    return predicate ? predicate(q.oldMS, q.newMS) : false;
  }

  /** OnDelete plan: never uses in-place updates. */
  planOnDelete(): void {
    runOnDelete(this);
  }

  /** Compares an MS with its original: replicas and the rollout-relevant annotations, plus the collected notes. */
  getMachineSetDiff(ms: MachineSetLike): MachineSetDiff {
    const original = this.originalMSs.get(nameOf(ms));
    const type = this.newMS && nameOf(ms) === nameOf(this.newMS) ? 'current' : 'old';
    const originalReplicas = original ? specReplicas(original) : 0;
    const desiredReplicas = specReplicas(ms);
    const st = statusReplicas(ms);
    let summary =
      !original || originalReplicas === desiredReplicas
        ? `${st}/${desiredReplicas} replicas`
        : `from ${st}/${originalReplicas} to ${st}/${desiredReplicas} replicas`;
    summary += `, ${availableReplicas(ms)} available, ${upToDateReplicas(ms)} upToDate`;

    const changes: string[] = [];
    if (original) {
      if (originalReplicas !== desiredReplicas) changes.push(`replicas ${desiredReplicas}`);
      const keys = [
        RolloutAnnotations.revision,
        RolloutAnnotations.moveMachinesToMachineSet,
        RolloutAnnotations.receiveMachinesFromMachineSets,
        RolloutAnnotations.acknowledgedMove,
        RolloutAnnotations.disableMachineCreate,
      ];
      for (const key of keys) {
        const before = original.metadata.annotations?.[key] ?? '';
        const now = ms.metadata.annotations?.[key];
        if (before === (now ?? '')) continue;
        if (now !== undefined) changes.push(`${key}: ${now}`);
        // A removed revision is not reported (upstream only reports its new value).
        else if (key !== RolloutAnnotations.revision) changes.push(`${key} removed`);
      }
    }
    return {
      type,
      hasOriginal: !!original,
      originalReplicas,
      desiredReplicas,
      summary,
      otherChanges: changes.join(','),
      reason: (this.notes.get(nameOf(ms)) ?? []).join(', '),
    };
  }
}
