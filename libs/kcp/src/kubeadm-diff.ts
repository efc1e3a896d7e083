// KubeadmConfig normalisation for comparisons (upstream matchClusterConfiguration / matchInitOrJoinConfiguration /
// dropOmittableFields, and PrepareKubeadmConfigsForDiff for the CanUpdateMachine request). One place, so the
// up-to-date check and the in-place coverage check agree on which differences matter.
import type { KubeadmConfigSpec } from '@capi/api';

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Keys where "unset" and "empty" mean different things to kubeadm (not set = defaults, empty = none). */
const EMPTY_IS_MEANINGFUL = new Set(['taints']);

/**
 * Drops empty arrays, empty maps and maps left empty, recursively: rendered to kubeadm / cloud-init files they are
 * the same as unset (upstream dropOmittableFields, generalised).
 */
export function dropOmittable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropOmittable);
  if (!isMap(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    const cleaned = dropOmittable(v);
    if (!EMPTY_IS_MEANINGFUL.has(k)) {
      if (Array.isArray(cleaned) && cleaned.length === 0) continue;
      if (isMap(cleaned) && Object.keys(cleaned).length === 0) continue;
    }
    out[k] = cleaned;
  }
  return out;
}

const isDefined = (v: unknown): boolean => isMap(v) && Object.keys(dropOmittable(v) as Json).length > 0;

/** A KubeadmConfig is a join config iff joinConfiguration is set (KCP always sets joinConfiguration.controlPlane). */
export const isJoinConfig = (spec: KubeadmConfigSpec | undefined): boolean => spec?.joinConfiguration !== undefined && isMap(spec.joinConfiguration);

/**
 * The ClusterConfiguration of a Machine's KubeadmConfig and of the KCP, ready to compare: fields that never cause a
 * rollout (controlPlaneEndpoint, added by the bootstrap provider; dns, updated in the workload cluster in place)
 * are taken from the KCP side, omittable empties are dropped.
 */
export function comparableClusterConfigurations(machineSpec: KubeadmConfigSpec | undefined, kcpSpec: KubeadmConfigSpec | undefined): { current: unknown; desired: unknown } {
  const desired = structuredClone((kcpSpec?.clusterConfiguration ?? {}) as Json);
  const current = structuredClone((machineSpec?.clusterConfiguration ?? {}) as Json);
  for (const key of ['controlPlaneEndpoint', 'dns']) {
    if (desired[key] === undefined) delete current[key];
    else current[key] = structuredClone(desired[key]);
  }
  return { current: dropOmittable(current), desired: dropOmittable(desired) };
}

/**
 * Everything but the ClusterConfiguration, ready to compare: join discovery is dropped (relevant only for joining),
 * an empty joinConfiguration.controlPlane on the Machine equals an unset one on the KCP, omittable empties dropped.
 */
export function comparableInitOrJoin(machineSpec: KubeadmConfigSpec | undefined, expectedSpec: KubeadmConfigSpec): { current: unknown; desired: unknown } {
  const current = structuredClone((machineSpec ?? {}) as Json);
  const desired = structuredClone(expectedSpec as Json);
  for (const side of [current, desired]) {
    delete side.clusterConfiguration;
    if (isMap(side.joinConfiguration)) delete side.joinConfiguration.discovery;
  }
  const cj = current.joinConfiguration;
  const dj = desired.joinConfiguration;
  if (isMap(cj) && isMap(dj) && dj.controlPlane === undefined && isMap(cj.controlPlane) && !isDefined(cj.controlPlane)) delete cj.controlPlane;
  return { current: dropOmittable(current), desired: dropOmittable(desired) };
}

/**
 * Normalises current and desired KubeadmConfig specs for the CanUpdateMachine request (spec §4.7 step 4): the first
 * control-plane Machine's initConfiguration is treated like the joinConfiguration KCP would give it today (an in-place
 * update turns it into a joined Machine), and fields that never cause a rollout are copied from desired to current.
 * Returns new objects; inputs are not changed.
 */
export function prepareKubeadmConfigSpecsForDiff(desired: KubeadmConfigSpec, current: KubeadmConfigSpec): { desired: KubeadmConfigSpec; current: KubeadmConfigSpec } {
  const d = structuredClone(desired) as Json;
  const c = structuredClone(current) as Json;
  if (!isJoinConfig(current as KubeadmConfigSpec) && isJoinConfig(desired as KubeadmConfigSpec)) {
    delete c.initConfiguration;
    c.joinConfiguration = structuredClone(d.joinConfiguration);
  }
  if (isMap(c.joinConfiguration) && isMap(d.joinConfiguration)) {
    if (d.joinConfiguration.discovery === undefined) delete c.joinConfiguration.discovery;
    else c.joinConfiguration.discovery = structuredClone(d.joinConfiguration.discovery);
  }
  const { current: cc } = comparableClusterConfigurations(c as KubeadmConfigSpec, d as KubeadmConfigSpec);
  if (c.clusterConfiguration !== undefined || d.clusterConfiguration !== undefined) {
    c.clusterConfiguration = cc;
    d.clusterConfiguration = dropOmittable(d.clusterConfiguration ?? {});
  }
  return { desired: dropOmittable(d) as KubeadmConfigSpec, current: dropOmittable(c) as KubeadmConfigSpec };
}
