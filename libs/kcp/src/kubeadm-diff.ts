// KubeadmConfig normalisation for comparisons (upstream controlplane/kubeadm/internal PrepareKubeadmConfigsForDiff,
// defaulting.ApplyPreviousKubeadmConfigDefaults and dropOmittableFields). One place, so the up-to-date check and the
// CanUpdateMachine request agree on which differences matter.
import type { KubeadmConfigSpec } from '@capi/api';

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Keys where "unset" and "empty" differ: taints (not set = kubeadm defaults, empty = none) and
 * joinConfiguration.controlPlane (a Go pointer: set, even empty, marks a control-plane join and is serialised as {}).
 */
const EMPTY_IS_MEANINGFUL = new Set(['taints', 'controlPlane']);

/**
 * Drops empty arrays, empty maps and maps left empty, recursively: rendered to kubeadm / cloud-init files they are
 * the same as unset (upstream dropOmittableFields, generalised from its list of fields to every field).
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

/** `obj[key]` as a map, created when missing (Go's non-pointer structs always exist). */
function child(obj: Json, key: string): Json {
  if (!isMap(obj[key])) obj[key] = {};
  return obj[key] as Json;
}

/** Sets `obj[key]` to `value`, or removes it when `value` is undefined (a Go nil/zero assignment). */
function assign(obj: Json, key: string, value: unknown): void {
  if (value === undefined) delete obj[key];
  else obj[key] = structuredClone(value);
}

/**
 * A KubeadmConfig of a joining Machine (upstream isKubeadmConfigForJoin): joinConfiguration.controlPlane is set (KCP
 * sets it on every join config it creates and empties the whole joinConfiguration of the first Machine's). Neither
 * discovery nor e.g. timeouts count: conversion from v1beta1 puts timeouts into init configs' joinConfiguration too.
 */
export function isJoinConfig(spec: KubeadmConfigSpec | undefined): boolean {
  const join = spec?.joinConfiguration;
  return isMap(join) && isMap(join.controlPlane);
}

/** The first control-plane Machine's KubeadmConfig (kubeadm init). */
export const isInitConfig = (spec: KubeadmConfigSpec | undefined): boolean => !isJoinConfig(spec);

/**
 * Defaults the bootstrap webhooks used to apply (upstream ApplyPreviousKubeadmConfigDefaults): applied to both sides
 * so that objects written before and after the defaulting was dropped compare equal.
 */
function applyPreviousDefaults(spec: Json): void {
  if (!spec.format) spec.format = 'cloud-config';
  for (const key of ['initConfiguration', 'joinConfiguration']) {
    const nodeRegistration = child(child(spec, key), 'nodeRegistration');
    if (!nodeRegistration.imagePullPolicy) nodeRegistration.imagePullPolicy = 'IfNotPresent';
  }
  const file = (spec.joinConfiguration as Json).discovery;
  const exec =
    isMap(file) && isMap(file.file) && isMap(file.file.kubeConfig) && isMap(file.file.kubeConfig.user)
      ? file.file.kubeConfig.user.exec
      : undefined;
  if (isDefined(exec) && !(exec as Json).apiVersion) (exec as Json).apiVersion = 'client.authentication.k8s.io/v1';
}

/**
 * The first Machine's init configuration as the join configuration it becomes with an in-place update: the current
 * timeouts, patches, skipPhases and nodeRegistration move over, localAPIEndpoint becomes controlPlane.localAPIEndpoint,
 * caCertPath (join only) is taken from desired so it never counts.
 */
function convertInitToJoin(current: Json, desired: Json): void {
  const init = child(current, 'initConfiguration');
  const join = child(current, 'joinConfiguration');
  for (const key of ['timeouts', 'patches', 'skipPhases', 'nodeRegistration']) assign(join, key, init[key]);
  join.controlPlane = isDefined(init.localAPIEndpoint)
    ? { localAPIEndpoint: structuredClone(init.localAPIEndpoint) }
    : {};
  current.initConfiguration = {};
  assign(join, 'caCertPath', isMap(desired.joinConfiguration) ? desired.joinConfiguration.caCertPath : undefined);
}

/**
 * Normalises desired and current KubeadmConfig specs for comparison (upstream PrepareKubeadmConfigsForDiff): with
 * `convertCurrentInitToJoin` the first Machine's init configuration is compared as a join configuration; fields that
 * never cause a rollout (controlPlaneEndpoint, dns, join discovery, control-plane component health-check timeouts) are
 * equalised or dropped; previous webhook defaults applied; omittable empties dropped. Returns new objects.
 */
export function prepareKubeadmConfigSpecsForDiff(
  desired: KubeadmConfigSpec,
  current: KubeadmConfigSpec,
  convertCurrentInitToJoin: boolean,
): { desired: KubeadmConfigSpec; current: KubeadmConfigSpec } {
  const d = structuredClone(desired) as Json;
  const c = structuredClone(current) as Json;
  if (convertCurrentInitToJoin && isInitConfig(current)) convertInitToJoin(c, d);

  // controlPlaneEndpoint is added by the bootstrap provider and never changes; dns is updated in the workload cluster.
  const dc = child(d, 'clusterConfiguration');
  const cc = child(c, 'clusterConfiguration');
  for (const key of ['controlPlaneEndpoint', 'dns']) assign(cc, key, dc[key]);

  applyPreviousDefaults(d);
  applyPreviousDefaults(c);

  for (const side of [d, c]) {
    // Discovery matters for joining only (and its token must not reach an extension).
    delete child(side, 'joinConfiguration').discovery;
    // v1beta1 apiServer.timeoutForControlPlane converts into these; a difference must not roll out.
    for (const key of ['initConfiguration', 'joinConfiguration']) {
      const timeouts = child(side, key).timeouts;
      if (isMap(timeouts)) delete timeouts.controlPlaneComponentHealthCheckSeconds;
    }
  }
  // CABPK turns an unset joinConfiguration.controlPlane into an empty one.
  const dj = d.joinConfiguration as Json;
  const cj = c.joinConfiguration as Json;
  if (dj.controlPlane === undefined && isMap(cj.controlPlane) && !isDefined(cj.controlPlane)) delete cj.controlPlane;

  return { desired: dropOmittable(d) as KubeadmConfigSpec, current: dropOmittable(c) as KubeadmConfigSpec };
}
