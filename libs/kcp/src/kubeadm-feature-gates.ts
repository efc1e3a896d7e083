// Kubeadm feature gates KCP defaults on the KubeadmConfigs it creates (upstream
// controlplane/kubeadm/pkg/desiredstate/desired_state.go DefaultFeatureGates). Machines created by upstream carry them,
// so leaving them out would make those Machines look outdated.
import type { KubeadmConfigSpec } from '@capi/api';
import type { parseKubernetesVersion } from '@capi/apimachinery';

type SemVer = NonNullable<ReturnType<typeof parseKubernetesVersion>>;

/** Kubelets talk to their local API server only; needed from 1.31 (kubelet/apiserver skew), GA in 1.36. */
export const CONTROL_PLANE_KUBELET_LOCAL_MODE = 'ControlPlaneKubeletLocalMode';

/** Major.minor.patch without pre-release (upstream version.Compare with WithoutPreReleases). */
const core = (v: SemVer): [number, number, number] => [v.major, v.minor, v.patch];
const atLeast = (v: SemVer, min: [number, number, number]): boolean => {
  const c = core(v);
  for (let i = 0; i < 3; i++) if (c[i] !== min[i]) return c[i] > min[i];
  return true;
};

/** Sets ControlPlaneKubeletLocalMode=true for 1.31 <= version < 1.36 unless the user set it. Mutates `spec`. */
export function defaultFeatureGates(spec: KubeadmConfigSpec, version: SemVer): void {
  if (!atLeast(version, [1, 31, 0]) || atLeast(version, [1, 36, 0])) return;
  const cluster = ((spec as Record<string, unknown>).clusterConfiguration ??= {}) as {
    featureGates?: Record<string, boolean>;
  };
  cluster.featureGates ??= {};
  if (!(CONTROL_PLANE_KUBELET_LOCAL_MODE in cluster.featureGates))
    cluster.featureGates[CONTROL_PLANE_KUBELET_LOCAL_MODE] = true;
}
