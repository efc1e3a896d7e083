// Which spec fields the reference updater claims it can change in place, per object kind.
// Entries are dotted paths from the object root; `onlyIfBothHave` limits an entry to objects where that
// sub-object exists on both sides (e.g. a specific infra backend).

export type AcceptedChange = string | { path: string; onlyIfBothHave: string };
export type AcceptedChanges = Record<string, AcceptedChange[]>;

/**
 * The documented set (as upstream test/extension/handlers/inplaceupdate/handlers.go canUpdateMachineSpec & co). Infra
 * kinds are added through the `acceptedChanges` option.
 */
export const DEFAULT_ACCEPTED_CHANGES: AcceptedChanges = {
  Machine: ['spec.version', 'spec.failureDomain'],
  MachineSet: ['spec.template.spec.version', 'spec.template.spec.failureDomain'],
  KubeadmConfig: ['spec.clusterConfiguration.etcd.local.imageTag', 'spec.files'],
  KubeadmConfigTemplate: ['spec.template.spec.clusterConfiguration.etcd.local.imageTag', 'spec.template.spec.files'],
  DevMachine: [{ path: 'spec.backend.docker.bootstrapTimeout', onlyIfBothHave: 'spec.backend.docker' }],
  DevMachineTemplate: [
    { path: 'spec.template.spec.backend.docker.bootstrapTimeout', onlyIfBothHave: 'spec.template.spec.backend.docker' },
  ],
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

function lookup(obj: unknown, segments: string[]): { found: boolean; value?: unknown } {
  let cur: unknown = obj;
  for (const s of segments) {
    if (!isObject(cur) || !(s in cur)) return { found: false };
    cur = cur[s];
  }
  return { found: true, value: cur };
}

/** Sets `value` at `segments`, creating parent objects. */
function setAt(obj: Json, segments: string[], value: unknown): void {
  let cur = obj;
  for (const s of segments.slice(0, -1)) {
    if (!isObject(cur[s])) cur[s] = {};
    cur = cur[s] as Json;
  }
  cur[segments[segments.length - 1]] = structuredClone(value);
}

/** Deletes the leaf and then parents left empty, unless the other side has them (so no `{}` leftovers). */
function deleteAt(obj: Json, segments: string[], other: unknown): void {
  const parents: Json[] = [];
  let cur: unknown = obj;
  for (const s of segments.slice(0, -1)) {
    if (!isObject(cur) || !isObject(cur[s])) return;
    parents.push(cur);
    cur = cur[s];
  }
  if (!isObject(cur)) return;
  delete cur[segments[segments.length - 1]];
  for (let i = parents.length - 1; i >= 0; i--) {
    const key = segments[i];
    const child = parents[i][key];
    if (isObject(child) && Object.keys(child).length === 0 && !lookup(other, segments.slice(0, i + 1)).found)
      delete parents[i][key];
    else break;
  }
}

/**
 * Returns a copy of `current` where every accepted path takes the value it has in `desired`.
 * Nothing happens when the kinds differ or the kind has no accepted changes.
 */
export function applyAcceptedChanges(current: Json, desired: Json, accepted: AcceptedChanges): Json {
  const out = structuredClone(current);
  if (current.kind !== desired.kind) return out;
  for (const entry of accepted[String(current.kind)] ?? []) {
    const path = typeof entry === 'string' ? entry : entry.path;
    if (typeof entry !== 'string') {
      const guard = entry.onlyIfBothHave.split('.');
      if (!lookup(current, guard).found || !lookup(desired, guard).found) continue;
    }
    const segments = path.split('.');
    const wanted = lookup(desired, segments);
    if (wanted.found) setAt(out, segments, wanted.value);
    else deleteAt(out, segments, desired);
  }
  return out;
}

/** Merges extra kinds/paths into the defaults (extra entries for a kind replace the default list of that kind). */
export const withAcceptedChanges = (extra: AcceptedChanges = {}): AcceptedChanges => ({
  ...DEFAULT_ACCEPTED_CHANGES,
  ...extra,
});
