// Which fields of a KubeadmControlPlane may change on update (controlplane/kubeadm/webhooks/admission/
// kubeadmcontrolplane.go ValidateUpdate's allowedPaths, allowed, pathsMatch, paths): every path in the merge patch from
// the old object to the new one must be on the allow list; the rest "cannot be modified".
import { createMergePatch } from '@capi/apimachinery';
import { fieldError, type FieldError } from '../field-errors';
import { isMap, type JsonMap } from './common';

const SPEC = 'spec';
const KCS = 'kubeadmConfigSpec';
const CC = 'clusterConfiguration';
const INIT = 'initConfiguration';
const JOIN = 'joinConfiguration';

/** A trailing "*" allows everything beneath; without it the path itself may also be unset. */
export const KCP_ALLOWED_PATHS: readonly (readonly string[])[] = [
  // metadata
  ['metadata', '*'],
  // spec.kubeadmConfigSpec.clusterConfiguration
  [SPEC, KCS, CC, 'etcd'],
  [SPEC, KCS, CC, 'etcd', '*'],
  [SPEC, KCS, CC, 'etcd', 'local'],
  [SPEC, KCS, CC, 'etcd', 'local', '*'],
  [SPEC, KCS, CC, 'etcd', 'external', '*'],
  [SPEC, KCS, CC, 'dns'],
  [SPEC, KCS, CC, 'dns', '*'],
  [SPEC, KCS, CC, 'imageRepository'],
  [SPEC, KCS, CC, 'featureGates'],
  [SPEC, KCS, CC, 'featureGates', '*'],
  [SPEC, KCS, CC, 'apiServer'],
  [SPEC, KCS, CC, 'apiServer', '*'],
  [SPEC, KCS, CC, 'controllerManager'],
  [SPEC, KCS, CC, 'controllerManager', '*'],
  [SPEC, KCS, CC, 'scheduler'],
  [SPEC, KCS, CC, 'scheduler', '*'],
  [SPEC, KCS, CC, 'certificateValidityPeriodDays'],
  [SPEC, KCS, CC, 'encryptionAlgorithm'],
  // spec.kubeadmConfigSpec.initConfiguration
  [SPEC, KCS, INIT, 'nodeRegistration'],
  [SPEC, KCS, INIT, 'nodeRegistration', '*'],
  [SPEC, KCS, INIT, 'patches', 'directory'],
  [SPEC, KCS, INIT, 'patches'],
  [SPEC, KCS, INIT, 'skipPhases'],
  [SPEC, KCS, INIT, 'bootstrapTokens'],
  [SPEC, KCS, INIT, 'localAPIEndpoint'],
  [SPEC, KCS, INIT, 'localAPIEndpoint', '*'],
  [SPEC, KCS, INIT, 'timeouts'],
  [SPEC, KCS, INIT, 'timeouts', '*'],
  // spec.kubeadmConfigSpec.joinConfiguration
  [SPEC, KCS, JOIN, 'nodeRegistration'],
  [SPEC, KCS, JOIN, 'nodeRegistration', '*'],
  [SPEC, KCS, JOIN, 'patches', 'directory'],
  [SPEC, KCS, JOIN, 'patches'],
  [SPEC, KCS, JOIN, 'skipPhases'],
  [SPEC, KCS, JOIN, 'caCertPath'],
  [SPEC, KCS, JOIN, 'controlPlane'],
  [SPEC, KCS, JOIN, 'controlPlane', '*'],
  [SPEC, KCS, JOIN, 'discovery'],
  [SPEC, KCS, JOIN, 'discovery', '*'],
  [SPEC, KCS, JOIN, 'timeouts'],
  [SPEC, KCS, JOIN, 'timeouts', '*'],
  // spec.kubeadmConfigSpec
  [SPEC, KCS, 'bootCommands'],
  [SPEC, KCS, 'preKubeadmCommands'],
  [SPEC, KCS, 'postKubeadmCommands'],
  [SPEC, KCS, 'files'],
  [SPEC, KCS, 'verbosity'],
  [SPEC, KCS, 'users'],
  [SPEC, KCS, 'ntp'],
  [SPEC, KCS, 'ntp', '*'],
  [SPEC, KCS, 'ignition'],
  [SPEC, KCS, 'ignition', '*'],
  [SPEC, KCS, 'diskSetup'],
  [SPEC, KCS, 'diskSetup', '*'],
  [SPEC, KCS, 'format'],
  [SPEC, KCS, 'mounts'],
  // spec.machineTemplate
  [SPEC, 'machineTemplate', 'metadata'],
  [SPEC, 'machineTemplate', 'metadata', '*'],
  [SPEC, 'machineTemplate', 'spec'],
  [SPEC, 'machineTemplate', 'spec', '*'],
  // spec
  [SPEC, 'replicas'],
  [SPEC, 'version'],
  [SPEC, 'remediation'],
  [SPEC, 'remediation', '*'],
  [SPEC, 'machineNaming'],
  [SPEC, 'machineNaming', '*'],
  [SPEC, 'rollout'],
  [SPEC, 'rollout', '*'],
];

/** pathsMatch: `path` is `allowed`, or lies under a "*" of it. */
export function pathsMatch(allowed: readonly string[], path: readonly string[]): boolean {
  if (allowed.length === 0 || path.length === 0) return false;
  let i = 0;
  for (i = 0; i < path.length; i++) {
    if (i > allowed.length - 1) return false;
    if (allowed[i] === '*') return true;
    if (path[i] !== allowed[i]) return false;
  }
  // The loop ended one past the last index; Go's `for i = range path` leaves i at the last index.
  return i - 1 >= allowed.length - 1;
}

export const allowed = (allowList: readonly (readonly string[])[], path: readonly string[]): boolean =>
  allowList.some((a) => pathsMatch(a, path));

/** paths: the leaf paths of a merge patch (a null or a non-object value ends a path). */
export function paths(path: readonly string[], diff: JsonMap): string[][] {
  const out: string[][] = [];
  for (const [key, value] of Object.entries(diff)) {
    if (!isMap(value)) out.push([...path, key]);
    else out.push(...paths([...path, key], value));
  }
  return out;
}

/**
 * The object as Go's json.Marshal of the typed struct prints it: omitempty/omitzero drop empty strings, lists and
 * structs (and null), so a member set to its zero value reads the same as one left out.
 */
export function goJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(goJson);
  if (!isMap(v)) return v;
  const out: JsonMap = {};
  for (const [k, val] of Object.entries(v)) {
    const p = goJson(val);
    if (p === undefined || p === null || p === '') continue;
    if (Array.isArray(p) && p.length === 0) continue;
    if (isMap(p) && Object.keys(p).length === 0) continue;
    out[k] = p;
  }
  return out;
}

/** The "cannot be modified" errors of an update (ValidateUpdate's loop over the merge patch's paths). */
export function immutableFieldErrors(oldObj: unknown, newObj: unknown): FieldError[] {
  const patch = createMergePatch(goJson(oldObj), goJson(newObj));
  if (!isMap(patch)) return [];
  const errs: FieldError[] = [];
  for (const path of paths([], patch)) {
    if (path.length === 0 || allowed(KCP_ALLOWED_PATHS, path)) continue;
    errs.push(fieldError.forbidden(path.join('.'), 'cannot be modified'));
  }
  return errs;
}
