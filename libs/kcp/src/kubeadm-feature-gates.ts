// Kubeadm feature gates KCP defaults (upstream controlplane/kubeadm/pkg/desiredstate/desired_state.go
// DefaultFeatureGates): on the KubeadmConfigs it creates and in the kubeadm-config ConfigMap. Machines created by
// upstream carry them, so leaving them out would make those Machines look outdated.
import type { KubeadmConfigSpec } from '@capi/api';
import { compareKubernetesVersions, parseKubernetesVersion } from '@capi/apimachinery';

/** Kubelets talk to their local API server only; needed from 1.31 (kubelet/apiserver skew), GA in 1.36. */
export const CONTROL_PLANE_KUBELET_LOCAL_MODE = 'ControlPlaneKubeletLocalMode';

/** Major.minor.patch without pre-release (upstream version.Compare with WithoutPreReleases). */
export const withoutPreRelease = (version: string): string => {
  const v = parseKubernetesVersion(version);
  return v ? `${v.major}.${v.minor}.${v.patch}` : version;
};

/**
 * ControlPlaneKubeletLocalMode=true unless set, for 1.31 <= version < 1.36 (before 1.31 the gate does not exist, from
 * 1.36 it is GA and gone). Returns the feature gates to use (undefined when none).
 */
export function defaultFeatureGates(
  featureGates: Record<string, boolean> | undefined,
  version: string,
): Record<string, boolean> | undefined {
  const v = withoutPreRelease(version);
  if (compareKubernetesVersions(v, '1.31.0') < 0 || compareKubernetesVersions(v, '1.36.0') >= 0) return featureGates;
  return {
    ...featureGates,
    [CONTROL_PLANE_KUBELET_LOCAL_MODE]: featureGates?.[CONTROL_PLANE_KUBELET_LOCAL_MODE] ?? true,
  };
}

/** defaultFeatureGates applied to a KubeadmConfig spec's clusterConfiguration. Mutates `spec`. */
export function defaultKubeadmConfigFeatureGates(spec: KubeadmConfigSpec, version: string): void {
  const cluster = (spec as { clusterConfiguration?: { featureGates?: Record<string, boolean> } }).clusterConfiguration;
  const gates = defaultFeatureGates(cluster?.featureGates, version);
  if (gates === cluster?.featureGates) return;
  (spec as Record<string, unknown>).clusterConfiguration = { ...cluster, featureGates: gates };
}
