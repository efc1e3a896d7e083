// apps/v1 DaemonSet / Deployment / ReplicaSet and rbac.authorization.k8s.io/v1 through kubectl: server-side apply (list-map keys),
// status and scale subresources, and `kubectl get` tables as kube's printers print them.
import YAML from 'yaml';
import { kubectlSuite, tableRows } from './support/kubectl';

jest.setTimeout(30000);

const { ok } = kubectlSuite('apiserver-workloads-');
const apply = (obj: Record<string, unknown>, args: string[] = []) =>
  ok(['apply', '--server-side', ...args, '-f', '-'], YAML.stringify(obj));
const get = async (args: string[]) => tableRows(await ok(['get', ...args]));
const AGE = expect.stringMatching(/^\d+s$/);

const podTemplate = (labels: Record<string, string>, containers: { name: string; image: string }[]) => ({
  metadata: { labels },
  spec: { containers },
});

describe('apps/v1 and rbac.authorization.k8s.io/v1', () => {
  it('daemonsets: NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE (+ wide), status subresource', async () => {
    await apply({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'kube-proxy', namespace: 'default', labels: { 'k8s-app': 'kube-proxy' } },
      spec: {
        selector: { matchLabels: { 'k8s-app': 'kube-proxy' } },
        template: {
          ...podTemplate({ 'k8s-app': 'kube-proxy' }, [
            { name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.31.0' },
          ]),
          spec: {
            containers: [{ name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.31.0' }],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
          },
        },
      },
    });
    const status = {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 2,
      updatedNumberScheduled: 3,
      numberAvailable: 2,
      numberMisscheduled: 0,
    };
    await ok(['patch', 'ds', 'kube-proxy', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    expect(await get(['ds', 'kube-proxy'])).toEqual([
      ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE'],
      ['kube-proxy', '3', '3', '2', '3', '2', 'kubernetes.io/os=linux', AGE],
    ]);
    const wide = await get(['daemonsets', 'kube-proxy', '-o', 'wide']);
    expect(wide[0].slice(-3)).toEqual(['CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(wide[1].slice(-3)).toEqual(['kube-proxy', 'registry.k8s.io/kube-proxy:v1.31.0', 'k8s-app=kube-proxy']);
  });

  it('deployments: containers merge by name under server-side apply; READY from spec.replicas; scale subresource', async () => {
    const deployment = (containers: { name: string; image: string }[], replicas = 2) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'coredns', namespace: 'default' },
      spec: {
        replicas,
        selector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        template: podTemplate({ 'k8s-app': 'kube-dns' }, containers),
      },
    });
    await apply(deployment([{ name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.11.3' }]));
    // A second manager owning another container: list-map keyed by name keeps both.
    await apply(deployment([{ name: 'sidecar', image: 'busybox:1' }]), ['--field-manager=other']);
    const got = JSON.parse(await ok(['get', 'deploy', 'coredns', '-o', 'json']));
    expect(got.spec.template.spec.containers.map((c: { name: string }) => c.name).sort()).toEqual([
      'coredns',
      'sidecar',
    ]);
    expect(await get(['deploy', 'coredns'])).toEqual([
      ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'],
      ['coredns', '0/2', '0', '0', AGE],
    ]);
    await ok(['scale', 'deployment', 'coredns', '--replicas=3']);
    const scale = JSON.parse(await ok(['get', 'deploy', 'coredns', '--subresource=scale', '-o', 'json']));
    expect(scale).toMatchObject({ kind: 'Scale', spec: { replicas: 3 }, status: { selector: 'k8s-app=kube-dns' } });
  });

  it('replicasets: NAME DESIRED CURRENT READY AGE (+ wide); status and scale subresources', async () => {
    await apply({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'coredns-abc', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { 'k8s-app': 'kube-dns', 'pod-template-hash': 'abc' } },
        template: podTemplate({ 'k8s-app': 'kube-dns', 'pod-template-hash': 'abc' }, [
          { name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.11.3' },
        ]),
      },
    });
    const status = { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1 };
    await ok(['patch', 'rs', 'coredns-abc', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    expect(await get(['rs', 'coredns-abc'])).toEqual([
      ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE'],
      ['coredns-abc', '2', '2', '1', AGE],
    ]);
    const wide = await get(['replicasets', 'coredns-abc', '-o', 'wide']);
    expect(wide[0].slice(-3)).toEqual(['CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(wide[1].slice(-3)).toEqual([
      'coredns',
      'registry.k8s.io/coredns/coredns:v1.11.3',
      'k8s-app=kube-dns,pod-template-hash=abc',
    ]);
    await ok(['scale', 'rs', 'coredns-abc', '--replicas=3']);
    expect(await get(['rs', 'coredns-abc'])).toEqual([
      ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE'],
      ['coredns-abc', '3', '2', '1', AGE],
    ]);
  });

  it('clusterroles / roles: NAME CREATED AT; bindings: NAME ROLE AGE (+ USERS GROUPS SERVICEACCOUNTS)', async () => {
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'kubeadm:get-nodes' },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
    });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kubeadm:get-nodes' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kubeadm:get-nodes' },
      subjects: [
        {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'Group',
          name: 'system:bootstrappers:kubeadm:default-node-token',
        },
        { kind: 'ServiceAccount', name: 'sa', namespace: 'kube-system' },
      ],
    });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'kubeadm:nodes-kubeadm-config', namespace: 'default' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['kubeadm-config'], verbs: ['get'] }],
    });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'kubeadm:nodes-kubeadm-config', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kubeadm:nodes-kubeadm-config' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'kube-apiserver-kubelet-client' }],
    });
    const createdAt = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await get(['clusterrole', 'kubeadm:get-nodes'])).toEqual([
      ['NAME', 'CREATED AT'],
      ['kubeadm:get-nodes', createdAt],
    ]);
    expect(await get(['roles', 'kubeadm:nodes-kubeadm-config'])).toEqual([
      ['NAME', 'CREATED AT'],
      ['kubeadm:nodes-kubeadm-config', createdAt],
    ]);
    expect(await get(['clusterrolebinding', 'kubeadm:get-nodes', '-o', 'wide'])).toEqual([
      ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS'],
      [
        'kubeadm:get-nodes',
        'ClusterRole/kubeadm:get-nodes',
        AGE,
        'system:bootstrappers:kubeadm:default-node-token',
        'kube-system/sa',
      ],
    ]);
    expect(await get(['rolebinding', 'kubeadm:nodes-kubeadm-config', '-o', 'wide'])).toEqual([
      ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS'],
      ['kubeadm:nodes-kubeadm-config', 'Role/kubeadm:nodes-kubeadm-config', AGE, 'kube-apiserver-kubelet-client'],
    ]);
  });
});
