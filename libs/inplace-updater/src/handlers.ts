// The reference updater's hook logic (upstream test/extension/handlers/inplaceupdate/handlers.go), as pure-ish
// functions over an injectable clock, so tests drive "in progress" -> "done" deterministically.
import { createHash } from 'node:crypto';
import { compare } from 'fast-json-patch';
import {
  encodePatch,
  type CanUpdateMachineRequest,
  type CanUpdateMachineResponse,
  type CanUpdateMachineSetRequest,
  type CanUpdateMachineSetResponse,
  type HookObject,
  type Patch,
  type UpdateMachineRequest,
  type UpdateMachineResponse,
} from '@capi/api';
import { applyAcceptedChanges, withAcceptedChanges, type AcceptedChanges } from './accepted-changes';

export const DISABLE_IN_PLACE_UPDATES_SETTING = 'disableInPlaceUpdates';
export const UPDATING_MESSAGE = 'Extension is updating Machine';
export const COMPLETED_MESSAGE = 'Extension completed updating Machine';
export const UNEXPECTED_UPDATE_MESSAGE =
  'Unexpected call to UpdateMachine hook after CanUpdateMachine or CanUpdateMachineSet did not return any patches';

export interface InPlaceUpdaterOptions {
  /** Extra accepted changes per kind (e.g. the in-memory infra kind). */
  acceptedChanges?: AcceptedChanges;
  /** Milliseconds since epoch. */
  now?: () => number;
  /** Minimum simulated update duration (upstream 15 s). */
  updateDurationSeconds?: number;
  /** Extra random duration upper bound, exclusive (upstream rand(0..4) -> 5). */
  updateJitterSeconds?: number;
  /** retryAfterSeconds while updating (upstream 5). */
  retryAfterSeconds?: number;
  /** [0,1) random source for the jitter. */
  random?: () => number;
}

type Response<T> = Omit<T, 'apiVersion' | 'kind'>;

const disabled = (settings?: Record<string, string>) => settings?.[DISABLE_IN_PLACE_UPDATES_SETTING] === 'true';

function requireObject(value: unknown, field: string): HookObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`request field ${field} must be an object`);
  return value as HookObject;
}

export class InPlaceUpdaterHandlers {
  private readonly accepted: AcceptedChanges;
  private readonly now: () => number;
  private readonly updateDurationSeconds: number;
  private readonly updateJitterSeconds: number;
  private readonly retryAfterSeconds: number;
  private readonly random: () => number;
  /** `<namespace>/<name>` -> in-flight update (first call time, jitter, desired fingerprint). */
  private readonly inFlight = new Map<string, { startedAt: number; jitterSeconds: number; desired: string }>();
  /** `<namespace>/<name>` -> digest of the last completed desired state (makes repeated calls idempotent). */
  private readonly completed = new Map<string, string>();

  constructor(opts: InPlaceUpdaterOptions = {}) {
    this.accepted = withAcceptedChanges(opts.acceptedChanges);
    this.now = opts.now ?? Date.now;
    this.updateDurationSeconds = opts.updateDurationSeconds ?? 15;
    this.updateJitterSeconds = opts.updateJitterSeconds ?? 5;
    this.retryAfterSeconds = opts.retryAfterSeconds ?? 5;
    this.random = opts.random ?? Math.random;
  }

  /** RFC 6902 patch from current (as received) to current with the accepted fields taken from desired. */
  private patchFor(current: unknown, desired: unknown, field: string): Patch {
    const cur = requireObject(current, `current.${field}`);
    const des = requireObject(desired, `desired.${field}`);
    return encodePatch('JSONPatch', compare(cur, applyAcceptedChanges(cur, des, this.accepted)));
  }

  private optionalPatch(current: unknown, desired: unknown, field: string): Patch {
    // Absent on both sides (worker without bootstrap object): nothing to change.
    if (current === undefined && desired === undefined) return encodePatch('JSONPatch', []);
    return this.patchFor(current, desired, field);
  }

  canUpdateMachine(req: CanUpdateMachineRequest): Response<CanUpdateMachineResponse> {
    if (disabled(req.settings)) return { status: 'Success' };
    const current = requireObject(req.current, 'current');
    const desired = requireObject(req.desired, 'desired');
    return {
      status: 'Success',
      machinePatch: this.patchFor(current.machine, desired.machine, 'machine'),
      infrastructureMachinePatch: this.patchFor(
        current.infrastructureMachine,
        desired.infrastructureMachine,
        'infrastructureMachine',
      ),
      bootstrapConfigPatch: this.optionalPatch(current.bootstrapConfig, desired.bootstrapConfig, 'bootstrapConfig'),
    };
  }

  canUpdateMachineSet(req: CanUpdateMachineSetRequest): Response<CanUpdateMachineSetResponse> {
    if (disabled(req.settings)) return { status: 'Success' };
    const current = requireObject(req.current, 'current');
    const desired = requireObject(req.desired, 'desired');
    return {
      status: 'Success',
      machineSetPatch: this.patchFor(current.machineSet, desired.machineSet, 'machineSet'),
      infrastructureMachineTemplatePatch: this.patchFor(
        current.infrastructureMachineTemplate,
        desired.infrastructureMachineTemplate,
        'infrastructureMachineTemplate',
      ),
      bootstrapConfigTemplatePatch: this.optionalPatch(
        current.bootstrapConfigTemplate,
        desired.bootstrapConfigTemplate,
        'bootstrapConfigTemplate',
      ),
    };
  }

  updateMachine(req: UpdateMachineRequest): Response<UpdateMachineResponse> {
    if (disabled(req.settings)) return { status: 'Failure', message: UNEXPECTED_UPDATE_MESSAGE, retryAfterSeconds: 0 };
    const machine = requireObject(requireObject(req.desired, 'desired').machine, 'desired.machine');
    if (!machine.metadata?.name) throw new Error('request field desired.machine.metadata.name is required');
    const key = `${machine.metadata.namespace ?? ''}/${machine.metadata.name}`;
    // A digest, not the JSON itself: `completed` keeps one per Machine ever updated (whole Machines at fleet scale).
    const fingerprint = createHash('sha256').update(JSON.stringify(req.desired)).digest('base64');
    if (this.completed.get(key) === fingerprint)
      return { status: 'Success', message: COMPLETED_MESSAGE, retryAfterSeconds: 0 };

    const now = this.now();
    let state = this.inFlight.get(key);
    if (!state || state.desired !== fingerprint) {
      state = {
        startedAt: now,
        jitterSeconds: Math.floor(this.random() * this.updateJitterSeconds),
        desired: fingerprint,
      };
      this.inFlight.set(key, state);
    }
    if (now - state.startedAt > (this.updateDurationSeconds + state.jitterSeconds) * 1000) {
      this.inFlight.delete(key);
      this.completed.set(key, fingerprint);
      return { status: 'Success', message: COMPLETED_MESSAGE, retryAfterSeconds: 0 };
    }
    return { status: 'Success', message: UPDATING_MESSAGE, retryAfterSeconds: this.retryAfterSeconds };
  }
}
