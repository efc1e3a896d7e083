// Coverage check (upstream canExtensionsUpdateMachine in
// controlplane/kubeadm/reconcilers/kubeadmcontrolplane/inplace_canupdatemachine.go and canExtensionsUpdateMachineSet in
// core/reconcilers/machinedeployment/machinedeployment_canupdatemachineset.go): apply the extensions' patches to
// `current` and check it then equals `desired`.
// One implementation for CanUpdateMachine (KCP) and CanUpdateMachineSet (MachineDeployment planner).
// Beyond upstream's "only one updater": several are composed in ExtensionConfig name order, each seeing `current`
// already patched by the previous ones; the first point where patched current == desired wins.
import {
  cleanupMachineSpecForDiff,
  type HookObject,
  type HookRequest,
  type HookResponse,
  type MachineSpec,
  type Patch,
} from '@capi/api';
import { getPath, type FieldPath } from '@capi/apimachinery';
import { applyPatchToObject, MACHINE_PATCH_PATHS, MACHINE_SET_PATCH_PATHS } from './apply-patch';
import { diffPaths, formatDiff } from './diff';
import { extensionConfigOfHandler, orderExtensions } from './updaters';

export type CoverageHook = 'CanUpdateMachine' | 'CanUpdateMachineSet';
export type CoverageRequest<H extends CoverageHook> = HookRequest<H>;

/** What the coverage check needs from the runtime client (RuntimeClient from @capi/runtime-client fits). */
export interface CoverageRuntimeClient {
  getAllExtensions(hook: CoverageHook, forObject: { metadata: { namespace?: string } }): Promise<string[]>;
  callExtension<H extends CoverageHook>(
    hook: H,
    forObject: { metadata: { namespace?: string } },
    name: string,
    request: CoverageRequest<H>,
  ): Promise<HookResponse<H>>;
}

/** One object slot of a request: where it lives in current/desired, which response field patches it, how it is compared. */
interface Slot {
  key: string;
  patchField: string;
  allowedPaths: readonly FieldPath[];
  /** The part that must be equal; undefined object = absent. */
  comparable: (obj: HookObject) => unknown;
  /** "Machine", or the object's kind for infra/bootstrap objects. */
  label: (obj: HookObject) => string;
  /** Where `comparable` sits in the object, to name uncovered fields by their full path. */
  fieldPrefix: string;
}

export class CoverageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CoverageError';
  }
}

/**
 * spec.template.spec of an infra/bootstrap template; a template without one compares as absent (upstream
 * matchesUnstructuredSpec in machinedeployment_canupdatemachineset.go compares `{}` then): two such templates are
 * equal, one on one side only is a difference.
 */
const templateSpec = (obj: HookObject): unknown => getPath(obj, ['spec', 'template', 'spec']);

const SLOTS: Record<CoverageHook, Slot[]> = {
  CanUpdateMachine: [
    {
      key: 'machine',
      patchField: 'machinePatch',
      allowedPaths: MACHINE_PATCH_PATHS,
      comparable: (o) => cleanupMachineSpecForDiff((o.spec ?? {}) as Partial<MachineSpec>),
      label: () => 'Machine',
      fieldPrefix: 'spec',
    },
    {
      key: 'infrastructureMachine',
      patchField: 'infrastructureMachinePatch',
      allowedPaths: MACHINE_PATCH_PATHS,
      comparable: (o) => o.spec,
      label: (o) => o.kind,
      fieldPrefix: 'spec',
    },
    {
      key: 'bootstrapConfig',
      patchField: 'bootstrapConfigPatch',
      allowedPaths: MACHINE_PATCH_PATHS,
      comparable: (o) => o.spec,
      label: (o) => o.kind,
      fieldPrefix: 'spec',
    },
  ],
  CanUpdateMachineSet: [
    {
      key: 'machineSet',
      patchField: 'machineSetPatch',
      allowedPaths: MACHINE_SET_PATCH_PATHS,
      comparable: (o) =>
        cleanupMachineSpecForDiff((getPath(o, ['spec', 'template', 'spec']) ?? {}) as Partial<MachineSpec>),
      label: () => 'MachineSet',
      fieldPrefix: 'spec.template.spec',
    },
    {
      key: 'infrastructureMachineTemplate',
      patchField: 'infrastructureMachineTemplatePatch',
      allowedPaths: MACHINE_SET_PATCH_PATHS,
      comparable: templateSpec,
      label: (o) => o.kind,
      fieldPrefix: 'spec.template.spec',
    },
    {
      key: 'bootstrapConfigTemplate',
      patchField: 'bootstrapConfigTemplatePatch',
      allowedPaths: MACHINE_SET_PATCH_PATHS,
      comparable: templateSpec,
      label: (o) => o.kind,
      fieldPrefix: 'spec.template.spec',
    },
  ],
};

/** Reasons why `current` does not match `desired` for the hook; empty when everything matches. */
export type CoverageComparator = (
  hook: CoverageHook,
  current: Record<string, HookObject | undefined>,
  desired: Record<string, HookObject | undefined>,
) => string[];

/**
 * The comparison of upstream matchesMachineSpec / matchesUnstructuredSpec: Machine spec after cleanup /
 * spec.template.spec; infra and bootstrap spec only.
 */
export const compareForCoverage: CoverageComparator = (hook, current, desired) => {
  const reasons: string[] = [];
  for (const slot of SLOTS[hook]) {
    const c = current[slot.key];
    const d = desired[slot.key];
    if (!c && !d) continue;
    const label = slot.label((d ?? c)!);
    if (!c || !d) {
      reasons.push(`${label} cannot be updated in-place: object is only in ${c ? 'current' : 'desired'}`);
      continue;
    }
    const diff = formatDiff(slot.comparable(c), slot.comparable(d));
    if (diff) reasons.push(`${label} cannot be updated in-place: ${diff}`);
  }
  return reasons;
};

/** The fields of one object that stay different after the extensions' patches. */
export interface UncoveredFields {
  /** "Machine", "MachineSet", or the infra/bootstrap object's kind. */
  object: string;
  /** Full paths, e.g. "spec.template.spec.image"; "<object>" when the object is on one side only. */
  fields: string[];
}

/**
 * What `current` (as patched) still lacks of `desired`, per object, by field path: the structured form of the
 * comparison's reasons (same slots and comparable parts as compareForCoverage).
 */
export function uncoveredFields(
  hook: CoverageHook,
  current: Record<string, HookObject | undefined>,
  desired: Record<string, HookObject | undefined>,
): UncoveredFields[] {
  const out: UncoveredFields[] = [];
  for (const slot of SLOTS[hook]) {
    const c = current[slot.key];
    const d = desired[slot.key];
    if (!c && !d) continue;
    const object = slot.label((d ?? c)!);
    if (!c || !d) {
      out.push({ object, fields: ['<object>'] });
      continue;
    }
    const paths = diffPaths(slot.comparable(c), slot.comparable(d)).map((p) =>
      p.path === '<root>' ? slot.fieldPrefix : `${slot.fieldPrefix}.${p.path}`,
    );
    if (paths.length) out.push({ object, fields: paths });
  }
  return out;
}

export interface CanExtensionsUpdateInput<H extends CoverageHook> {
  hook: H;
  runtimeClient: CoverageRuntimeClient;
  /** The object the hook is called for (its namespace selects handlers): the Machine / old MachineSet. */
  forObject: { metadata: { namespace?: string } };
  /** The request; `current` is patched in place as extensions answer. */
  request: CoverageRequest<H>;
  compare?: CoverageComparator;
}

export interface CanExtensionsUpdateResult {
  canUpdate: boolean;
  /** Why not (from the last extension's patched state), empty when canUpdate. */
  reasons: string[];
  /** Handlers called, in order. */
  extensions: string[];
  /** What stays different after every extension's patches, by field; empty when canUpdate or no extension. */
  uncovered: UncoveredFields[];
  /**
   * ExtensionConfigs whose patches changed `current` on the way to the match, in call order: the updaters the accepted
   * change belongs to (record them on the Machine with IN_PLACE_UPDATERS_ANNOTATION). Empty when !canUpdate.
   */
  contributors: string[];
}

/**
 * Calls the hook's handlers in ExtensionConfig name order, patching request.current after each, and stops at the
 * first match. Extension errors propagate; patch errors become
 * "failed to apply patches from extension <name> to the <Hook> request: ...".
 */
export async function canExtensionsUpdate<H extends CoverageHook>(
  input: CanExtensionsUpdateInput<H>,
): Promise<CanExtensionsUpdateResult> {
  const { hook, runtimeClient, forObject, request } = input;
  const compare = input.compare ?? compareForCoverage;
  const names = orderExtensions(await runtimeClient.getAllExtensions(hook, forObject));
  if (names.length === 0)
    return {
      canUpdate: false,
      reasons: [`no ${hook} extensions registered`],
      extensions: [],
      contributors: [],
      uncovered: [],
    };

  const current = request.current as unknown as Record<string, HookObject | undefined>;
  const desired = request.desired as unknown as Record<string, HookObject | undefined>;
  let reasons: string[] = [];
  const called: string[] = [];
  const contributors: string[] = [];
  for (const name of names) {
    called.push(name);
    const response = (await runtimeClient.callExtension(hook, forObject, name, request)) as unknown as Record<
      string,
      Patch | undefined
    >;
    const before = JSON.stringify(current);
    try {
      for (const slot of SLOTS[hook]) {
        const obj = current[slot.key];
        if (obj) current[slot.key] = applyPatchToObject(obj, response[slot.patchField], slot.allowedPaths);
      }
    } catch (e) {
      throw new CoverageError(
        `failed to apply patches from extension ${name} to the ${hook} request: ${(e as Error).message}`,
      );
    }
    const config = extensionConfigOfHandler(name);
    if (JSON.stringify(current) !== before && !contributors.includes(config)) contributors.push(config);
    reasons = compare(hook, current, desired);
    if (reasons.length === 0) return { canUpdate: true, reasons: [], extensions: called, contributors, uncovered: [] };
  }
  return {
    canUpdate: false,
    reasons,
    extensions: called,
    contributors: [],
    uncovered: uncoveredFields(hook, current, desired),
  };
}
