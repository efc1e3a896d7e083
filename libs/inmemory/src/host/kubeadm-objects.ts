// What `kubeadm init` leaves in the workload cluster that KCP keeps in line afterwards (upstream in-memory provider
// test/infrastructure/docker/reconcilers/backends/inmemory/inmemorymachine_backend.go reconcileNormalKubeadmObjects,
// reconcileNormalKubeProxy, reconcileNormalCoredns; contents as kubeadm writes them: cmd/kubeadm/app/phases/
// uploadconfig, addons/proxy, addons/dns, bootstraptoken/node and kubelet). Created when the first control-plane
// host boots, never overwritten: from then on they belong to the cluster (and to KCP's upkeep).
import {
  BOOTSTRAP_API_VERSION,
  marshalClusterConfigurationForVersion,
  type Cluster,
  type KubeadmConfig,
  type Machine,
} from '@capi/api';
import { compareKubernetesVersions, parseKubernetesVersion, type KubeObject } from '@capi/apimachinery';
import { isAlreadyExists, type Client } from '@capi/controller-runtime';

const KUBE_SYSTEM = 'kube-system';
const RBAC = 'rbac.authorization.k8s.io';
const RBAC_V1 = `${RBAC}/v1`;
const DEFAULT_REGISTRY = 'registry.k8s.io';

export interface KubeadmInitInput {
  cluster: Cluster;
  /** The Kubernetes version the host boots (Machine spec.version). */
  version: string;
  /** The KubeadmConfig's clusterConfiguration (Cluster API v1beta2 shape), if any. */
  clusterConfiguration?: Record<string, any>;
}

/**
 * The CoreDNS release the simulated kubeadm deploys per Kubernetes minor (kubeadm pins one per release in
 * cmd/kubeadm/app/constants CoreDNSVersion; this table follows those pins as far as known here, later minors use the
 * last entry). A KubeadmConfig's dns.imageTag overrides it, as with kubeadm.
 */
const COREDNS_BY_MINOR: [string, string][] = [
  ['1.29', 'v1.11.1'],
  ['1.30', 'v1.11.3'],
  ['1.31', 'v1.11.3'],
  ['1.32', 'v1.11.3'],
  ['1.33', 'v1.12.0'],
  ['1.34', 'v1.12.1'],
  ['1.35', 'v1.12.1'],
  ['1.36', 'v1.13.1'],
];

export function coreDnsVersionFor(version: string): string {
  const v = parseKubernetesVersion(version);
  if (!v) return COREDNS_BY_MINOR[0][1];
  let out = COREDNS_BY_MINOR[0][1];
  for (const [minor, coredns] of COREDNS_BY_MINOR)
    if (compareKubernetesVersions(`${v.major}.${v.minor}`, minor) >= 0) out = coredns;
  return out;
}

/** kubeadm's default Corefile (addons/dns manifests.go CoreDNSConfigMap). */
export const kubeadmCorefile = (dnsDomain: string): string => `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes ${dnsDomain} in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success ${dnsDomain}
       disable denial ${dnsDomain}
    }
    loop
    reload
    loadbalance
}
`;

const ociTag = (version: string) => version.replace(/[^-a-zA-Z0-9_.]/g, '_');
const trimSlash = (s: string) => s.replace(/\/+$/, '');

/** The kube-system ConfigMaps, kube-proxy DaemonSet, CoreDNS Deployment and kubeadm RBAC after `kubeadm init`. */
export function kubeadmInitObjects(input: KubeadmInitInput): KubeObject[] {
  const { cluster, version } = input;
  const cc = input.clusterConfiguration ?? {};
  const net = cluster.spec.clusterNetwork ?? {};
  const dnsDomain = net.serviceDomain ?? 'cluster.local';
  const endpoint = cluster.spec.controlPlaneEndpoint;
  const registry = trimSlash(cc.imageRepository || DEFAULT_REGISTRY);
  const clusterConfiguration = marshalClusterConfigurationForVersion(
    { ...cc, ...(endpoint?.host ? { controlPlaneEndpoint: `${endpoint.host}:${endpoint.port ?? 6443}` } : {}) },
    version,
    {
      kubernetesVersion: version,
      clusterName: cluster.metadata.name,
      dnsDomain,
      serviceSubnet: net.services?.cidrBlocks?.join(',') || '10.96.0.0/12',
      ...(net.pods?.cidrBlocks?.length ? { podSubnet: net.pods.cidrBlocks.join(',') } : {}),
    },
  );
  // kubeadm GetDNSImage: the default registry keeps CoreDNS under coredns/coredns.
  const dnsRepository = cc.dns?.imageRepository
    ? trimSlash(cc.dns.imageRepository)
    : registry === DEFAULT_REGISTRY
      ? `${registry}/coredns`
      : registry;
  const dnsTag = cc.dns?.imageTag || coreDnsVersionFor(version);
  const cm = (name: string, data: Record<string, string>): KubeObject =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: KUBE_SYSTEM }, data }) as KubeObject;
  const role = (kind: 'Role' | 'ClusterRole', name: string, rules: object[]): KubeObject =>
    ({
      apiVersion: RBAC_V1,
      kind,
      metadata: { name, ...(kind === 'Role' ? { namespace: KUBE_SYSTEM } : {}) },
      rules,
    }) as KubeObject;
  const binding = (
    kind: 'RoleBinding' | 'ClusterRoleBinding',
    name: string,
    roleRef: { kind: string; name: string },
    subjects: object[],
  ): KubeObject =>
    ({
      apiVersion: RBAC_V1,
      kind,
      metadata: { name, ...(kind === 'RoleBinding' ? { namespace: KUBE_SYSTEM } : {}) },
      roleRef: { apiGroup: RBAC, ...roleRef },
      subjects,
    }) as KubeObject;
  const group = (name: string) => ({ apiGroup: RBAC, kind: 'Group', name });
  const bootstrappers = group('system:bootstrappers:kubeadm:default-node-token');
  const nodes = group('system:nodes');
  return [
    cm('kubeadm-config', { ClusterConfiguration: clusterConfiguration }),
    role('Role', 'kubeadm:nodes-kubeadm-config', [
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['kubeadm-config'], verbs: ['get'] },
    ]),
    binding('RoleBinding', 'kubeadm:nodes-kubeadm-config', { kind: 'Role', name: 'kubeadm:nodes-kubeadm-config' }, [
      bootstrappers,
      nodes,
    ]),
    cm('kubelet-config', { kubelet: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n' }),
    role('Role', 'kubeadm:kubelet-config', [
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['kubelet-config'], verbs: ['get'] },
    ]),
    binding('RoleBinding', 'kubeadm:kubelet-config', { kind: 'Role', name: 'kubeadm:kubelet-config' }, [
      nodes,
      bootstrappers,
    ]),
    role('ClusterRole', 'kubeadm:get-nodes', [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }]),
    binding('ClusterRoleBinding', 'kubeadm:get-nodes', { kind: 'ClusterRole', name: 'kubeadm:get-nodes' }, [
      bootstrappers,
    ]),
    binding('ClusterRoleBinding', 'kubeadm:cluster-admins', { kind: 'ClusterRole', name: 'cluster-admin' }, [
      group('kubeadm:cluster-admins'),
    ]),
    binding('ClusterRoleBinding', 'kubeadm:node-proxier', { kind: 'ClusterRole', name: 'system:node-proxier' }, [
      { kind: 'ServiceAccount', name: 'kube-proxy', namespace: KUBE_SYSTEM },
    ]),
    cm('kube-proxy', {
      'config.conf': `apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: ${net.pods?.cidrBlocks?.join(',') ?? ''}\n`,
      'kubeconfig.conf': 'apiVersion: v1\nkind: Config\n',
    }),
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'kube-proxy', namespace: KUBE_SYSTEM, labels: { 'k8s-app': 'kube-proxy' } },
      spec: {
        selector: { matchLabels: { 'k8s-app': 'kube-proxy' } },
        template: {
          metadata: { labels: { 'k8s-app': 'kube-proxy' } },
          spec: {
            containers: [{ name: 'kube-proxy', image: `${registry}/kube-proxy:${ociTag(version)}` }],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            // kubeadm's kube-proxy runs on every Node, tainted or not.
            tolerations: [{ operator: 'Exists' }],
            serviceAccountName: 'kube-proxy',
            volumes: [{ name: 'kube-proxy', configMap: { name: 'kube-proxy' } }],
          },
        },
      },
    } as KubeObject,
    cm('coredns', { Corefile: kubeadmCorefile(dnsDomain) }),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'coredns', namespace: KUBE_SYSTEM, labels: { 'k8s-app': 'kube-dns' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        template: {
          metadata: { labels: { 'k8s-app': 'kube-dns' } },
          spec: {
            containers: [
              {
                name: 'coredns',
                image: `${dnsRepository}/coredns:${dnsTag}`,
                args: ['-conf', '/etc/coredns/Corefile'],
              },
            ],
            volumes: [
              { name: 'config-volume', configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'Corefile' }] } },
            ],
            // kubeadm's CoreDNS may run on control-plane Nodes (addons/dns manifests.go).
            tolerations: [
              { key: 'CriticalAddonsOnly', operator: 'Exists' },
              { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
            ],
          },
        },
      },
    } as KubeObject,
  ];
}

/** Creates those that do not exist (kubeadm init runs once; later hosts join and change nothing). */
export async function ensureKubeadmObjects(client: Client, objects: KubeObject[]): Promise<void> {
  for (const obj of objects) {
    try {
      await client.create(obj);
    } catch (e) {
      if (!isAlreadyExists(e))
        throw new Error(
          `failed to create ${obj.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}: ${(e as Error).message}`,
          {
            cause: e,
          },
        );
    }
  }
}

/** The objects of `kubeadm init` for a control-plane Machine booting: its KubeadmConfig's ClusterConfiguration. */
export async function kubeadmInitInputs(client: Client, cluster: Cluster, machine: Machine): Promise<KubeObject[]> {
  // Without a version there is nothing kubeadm would write the ClusterConfiguration for.
  if (!machine.spec.version) return [];
  const ref = machine.spec.bootstrap.configRef;
  const config =
    ref?.kind === 'KubeadmConfig'
      ? await client.tryGet<KubeadmConfig>({
          apiVersion: BOOTSTRAP_API_VERSION,
          kind: 'KubeadmConfig',
          namespace: machine.metadata.namespace,
          name: ref.name,
        })
      : undefined;
  return kubeadmInitObjects({
    cluster,
    version: machine.spec.version ?? '',
    clusterConfiguration: config?.spec.clusterConfiguration as Record<string, any> | undefined,
  });
}
