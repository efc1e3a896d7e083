// kubeadm's ClusterConfiguration as the kubeadm-config ConfigMap holds it (kubeadm.k8s.io/v1beta3 or v1beta4 YAML)
// to and from Cluster API's v1beta2 ClusterConfiguration (upstream bootstrap/kubeadm/pkg/types/utils.go
// UnmarshalClusterConfiguration / MarshalClusterConfigurationForVersion, the upstreamv1beta3 / upstreamv1beta4
// conversions, and upstream/upstream.go AdditionalData). Only the fields whose shape differs between the versions are
// converted; every other field is carried as it is.
import { compareKubernetesVersions, parseKubernetesVersion } from '@capi/apimachinery';
import YAML from 'yaml';

export const KUBEADM_V1BETA3 = 'kubeadm.k8s.io/v1beta3';
export const KUBEADM_V1BETA4 = 'kubeadm.k8s.io/v1beta4';

/** Cluster API's v1beta2 ClusterConfiguration (aligned with kubeadm v1beta4: extraArgs are `{name, value}` lists). */
export type ClusterConfiguration = Record<string, unknown>;

/** Data kubeadm's ClusterConfiguration has and Cluster API's has not (upstream.AdditionalData). */
export interface KubeadmAdditionalData {
  kubernetesVersion?: string;
  clusterName?: string;
  dnsDomain?: string;
  serviceSubnet?: string;
  podSubnet?: string;
  /** v1beta3 apiServer.timeoutForControlPlane (moved to InitConfiguration timeouts in v1beta4). */
  controlPlaneComponentHealthCheckSeconds?: number;
}

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The kubeadm API version for a Kubernetes version (utils.go KubeVersionToKubeadmAPIGroupVersion). */
export function kubeadmApiVersionFor(version: string): string {
  const v = parseKubernetesVersion(version);
  if (!v) throw new Error(`invalid Kubernetes version "${version}"`);
  const release = `${v.major}.${v.minor}.${v.patch}`; // version.WithoutPreReleases
  if (compareKubernetesVersions(release, '1.22.0') < 0)
    throw new Error("the bootstrap provider for kubeadm doesn't support Kubernetes version lower than v1.22.0");
  return compareKubernetesVersions(release, '1.31.0') < 0 ? KUBEADM_V1BETA3 : KUBEADM_V1BETA4;
}

// Components whose extraArgs are a map in v1beta3 and a list in v1beta4 / Cluster API v1beta2.
const ARG_PATHS = [['apiServer'], ['controllerManager'], ['scheduler'], ['etcd', 'local']];
const at = (o: Obj, path: string[]): Obj | undefined =>
  path.reduce<Obj | undefined>((cur, k) => (isObj(cur?.[k]) ? cur![k] : undefined), o);

/** Go's time.Duration String for whole seconds ("4m0s"). */
export function formatDurationSeconds(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

function parseDurationSeconds(d: unknown): number | undefined {
  if (typeof d !== 'string') return undefined;
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)s)?$/.exec(d);
  if (!m || d === '') throw new Error(`invalid duration "${d}"`);
  return Math.floor(Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0));
}

/**
 * Parses the ClusterConfiguration document of the kubeadm-config ConfigMap into Cluster API's shape and the data only
 * kubeadm has. Anything else than a v1beta3/v1beta4 ClusterConfiguration is an error.
 */
export function unmarshalClusterConfiguration(yaml: string): {
  config: ClusterConfiguration;
  data: KubeadmAdditionalData;
} {
  let doc: unknown;
  try {
    doc = YAML.parse(yaml);
  } catch (e) {
    throw new Error(`failed to decode ClusterConfiguration: ${(e as Error).message}`);
  }
  if (!isObj(doc)) throw new Error('failed to decode ClusterConfiguration: not a YAML object');
  const apiVersion = doc.apiVersion;
  if (apiVersion !== KUBEADM_V1BETA3 && apiVersion !== KUBEADM_V1BETA4)
    throw new Error(`failed to decode ClusterConfiguration: unknown apiVersion "${String(apiVersion)}"`);
  if (doc.kind !== 'ClusterConfiguration')
    throw new Error(`failed to decode ClusterConfiguration: unexpected kind "${String(doc.kind)}"`);
  const { apiVersion: _a, kind: _k, kubernetesVersion, clusterName, networking, proxy: _p, ...rest } = doc;
  const config: Obj = structuredClone(rest);
  const net = isObj(networking) ? networking : {};
  const data: KubeadmAdditionalData = {
    ...(typeof kubernetesVersion === 'string' && kubernetesVersion ? { kubernetesVersion } : {}),
    ...(typeof clusterName === 'string' && clusterName ? { clusterName } : {}),
    ...(typeof net.dnsDomain === 'string' && net.dnsDomain ? { dnsDomain: net.dnsDomain } : {}),
    ...(typeof net.serviceSubnet === 'string' && net.serviceSubnet ? { serviceSubnet: net.serviceSubnet } : {}),
    ...(typeof net.podSubnet === 'string' && net.podSubnet ? { podSubnet: net.podSubnet } : {}),
  };
  if (apiVersion === KUBEADM_V1BETA4) {
    // v1beta4 durations ↔ Cluster API's days (upstreamv1beta4 conversion.go convertToDays).
    for (const [period, days] of VALIDITY_PERIODS) {
      if (!(period in config)) continue;
      const seconds = parseDurationSeconds(config[period]);
      delete config[period];
      if (seconds) config[days] = Math.floor(seconds / 86400);
    }
  }
  if (apiVersion === KUBEADM_V1BETA3) {
    for (const path of ARG_PATHS) {
      const c = at(config, path);
      if (c && isObj(c.extraArgs))
        c.extraArgs = Object.keys(c.extraArgs)
          .sort()
          .map((name) => ({ name, value: String(c.extraArgs[name]) }));
    }
    const apiServer = at(config, ['apiServer']);
    if (apiServer && 'timeoutForControlPlane' in apiServer) {
      const seconds = parseDurationSeconds(apiServer.timeoutForControlPlane);
      if (seconds !== undefined) data.controlPlaneComponentHealthCheckSeconds = seconds;
      delete apiServer.timeoutForControlPlane;
    }
  }
  return { config, data };
}

/** Keys sorted at every level, as sigs.k8s.io/yaml writes them. */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObj(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k])]),
  );
}

// Cluster API's days and kubeadm v1beta4's durations.
const VALIDITY_PERIODS = [
  ['certificateValidityPeriod', 'certificateValidityPeriodDays'],
  ['caCertificateValidityPeriod', 'caCertificateValidityPeriodDays'],
] as const;

// v1beta4 fields v1beta3 has not (dropped when writing v1beta3, as the generated conversion drops them).
const V1BETA4_ONLY = ['certificateValidityPeriodDays', 'caCertificateValidityPeriodDays', 'encryptionAlgorithm'];

/**
 * The ClusterConfiguration document kubeadm of `version` reads (v1beta3 before 1.31, else v1beta4), with the data
 * only kubeadm has. Struct fields kubeadm always writes (`apiServer: {}` ...) are present, keys sorted.
 */
export function marshalClusterConfigurationForVersion(
  config: ClusterConfiguration,
  version: string,
  data: KubeadmAdditionalData = {},
): string {
  const apiVersion = kubeadmApiVersionFor(version);
  const out: Obj = structuredClone(config);
  for (const k of ['apiServer', 'controllerManager', 'dns', 'etcd', 'scheduler']) if (!isObj(out[k])) out[k] = {};
  const networking: Obj = {};
  if (data.dnsDomain) networking.dnsDomain = data.dnsDomain;
  if (data.serviceSubnet) networking.serviceSubnet = data.serviceSubnet;
  if (data.podSubnet) networking.podSubnet = data.podSubnet;
  out.networking = networking;
  if (data.kubernetesVersion) out.kubernetesVersion = data.kubernetesVersion;
  if (data.clusterName) out.clusterName = data.clusterName;
  if (apiVersion === KUBEADM_V1BETA3) {
    for (const k of V1BETA4_ONLY) delete out[k];
    for (const path of ARG_PATHS) {
      const c = at(out, path);
      if (!c) continue;
      delete c.extraEnvs;
      if (Array.isArray(c.extraArgs)) {
        const args: Obj = {};
        for (const a of c.extraArgs) if (isObj(a) && typeof a.name === 'string') args[a.name] = a.value ?? '';
        if (Object.keys(args).length) c.extraArgs = args;
        else delete c.extraArgs;
      }
    }
    if (data.controlPlaneComponentHealthCheckSeconds !== undefined)
      out.apiServer.timeoutForControlPlane = formatDurationSeconds(data.controlPlaneComponentHealthCheckSeconds);
  } else {
    if (!isObj(out.proxy)) out.proxy = {};
    for (const [period, days] of VALIDITY_PERIODS) {
      const d = out[days];
      delete out[days];
      if (typeof d === 'number' && d > 0) out[period] = formatDurationSeconds(d * 86400);
    }
  }
  out.apiVersion = apiVersion;
  out.kind = 'ClusterConfiguration';
  return YAML.stringify(sortKeys(out), { indentSeq: false, lineWidth: 0 });
}
