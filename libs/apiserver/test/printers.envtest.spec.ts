// `kubectl get` (and -o wide) of every built-in kind the server serves prints what kube's printers print.
import YAML from 'yaml';
import { builtinResources } from '../src/server/registry';
import { kubectlSuite, tableRows } from './support/kubectl';

jest.setTimeout(30000);

const { ok } = kubectlSuite('apiserver-printers-');

const DAY = 24 * 3600 * 1000;
/** Whole days ago: HumanDuration prints "<n>d" for the whole day, whatever the test's speed. */
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString().replace(/\.\d+Z$/, 'Z');
const apply = (obj: Record<string, unknown>) => ok(['apply', '--server-side', '-f', '-'], YAML.stringify(obj));
const get = async (args: string[]) => tableRows(await ok(['get', ...args]));

describe('kubectl get of built-in kinds', () => {
  it('every built-in kind served has a test below', () => {
    expect(
      builtinResources()
        .filter((r) => !r.review) // answered, never stored: kubectl-auth.envtest.spec.ts
        .map((r) => `${r.group}/${r.kind}`)
        .sort(),
    ).toEqual([
      '/ConfigMap',
      '/Event',
      '/Namespace',
      '/Node',
      // PersistentVolume(Claim), Service, PodDisruptionBudget, VolumeAttachment: drain-kubectl.envtest.spec.ts
      '/PersistentVolume',
      '/PersistentVolumeClaim',
      '/Pod',
      '/Secret',
      '/Service',
      '/ServiceAccount',
      'admissionregistration.k8s.io/MutatingWebhookConfiguration',
      'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
      'apiextensions.k8s.io/CustomResourceDefinition',
      // apps and rbac: workloads-printers.envtest.spec.ts
      'apps/DaemonSet',
      'apps/Deployment',
      'apps/ReplicaSet',
      'coordination.k8s.io/Lease',
      'events.k8s.io/Event',
      'policy/PodDisruptionBudget',
      'rbac.authorization.k8s.io/ClusterRole',
      'rbac.authorization.k8s.io/ClusterRoleBinding',
      'rbac.authorization.k8s.io/Role',
      'rbac.authorization.k8s.io/RoleBinding',
      'storage.k8s.io/VolumeAttachment',
    ]);
  });

  it.each(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'])('%s: NAME WEBHOOKS AGE', async (kind) => {
    const name = `printers-${kind.toLowerCase()}`;
    const hook = (n: string) => ({
      name: `${n}.printers.example.com`,
      clientConfig: { url: 'https://127.0.0.1:9/hook' },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['nothings'] }],
    });
    await apply({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: { name },
      webhooks: [hook('a'), hook('b')],
    });
    const rows = await get([`${kind.toLowerCase()}s`, name]);
    expect(rows[0]).toEqual(['NAME', 'WEBHOOKS', 'AGE']);
    expect(rows[1]).toEqual([name, '2', expect.stringMatching(/^\d+s$/)]);
    expect((await get([`${kind.toLowerCase()}s`, name, '-o', 'wide']))[0]).toEqual(['NAME', 'WEBHOOKS', 'AGE']);
  });

  it('serviceaccounts: NAME AGE', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'sa1', namespace: 'default' },
      secrets: [{ name: 'a' }, { name: 'b' }],
    });
    const rows = await get(['sa', 'sa1']);
    expect(rows[0]).toEqual(['NAME', 'AGE']);
    expect(rows[1]).toEqual(['sa1', expect.stringMatching(/^\d+s$/)]);
  });

  it('configmaps: NAME DATA AGE (data + binaryData keys)', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm1', namespace: 'default' },
      data: { a: '1', b: '2' },
      binaryData: { c: 'AAE=' },
    });
    const rows = await get(['cm', 'cm1']);
    expect(rows[0]).toEqual(['NAME', 'DATA', 'AGE']);
    expect(rows[1]).toEqual(['cm1', '3', expect.stringMatching(/^\d+s$/)]);
    expect((await get(['cm', 'cm1', '-o', 'wide']))[0]).toEqual(['NAME', 'DATA', 'AGE']);
  });

  it('pods: NAME READY STATUS RESTARTS AGE; wide IP NODE NOMINATED NODE READINESS GATES', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'po1', namespace: 'default' },
      spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'busybox' }], readinessGates: [{ conditionType: 'G' }] },
    });
    expect(await get(['po', 'po1'])).toEqual([
      ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'],
      ['po1', '0/1', 'Pending', '0', expect.stringMatching(/^\d+s$/)],
    ]);
    expect(await get(['pods', 'po1', '-o', 'wide'])).toEqual([
      ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'],
      ['po1', '0/1', 'Pending', '0', expect.stringMatching(/^\d+s$/), '<none>', 'n1', '<none>', '0/1'],
    ]);
  });

  it('secrets: NAME TYPE DATA AGE', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's1', namespace: 'default' },
      type: 'Opaque',
      data: { a: 'MQ==' },
    });
    const rows = await get(['secret', 's1']);
    expect(rows).toEqual([
      ['NAME', 'TYPE', 'DATA', 'AGE'],
      ['s1', 'Opaque', '1', expect.stringMatching(/^\d+s$/)],
    ]);
  });

  it('namespaces: NAME STATUS AGE (new Namespaces are Active)', async () => {
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'printers' } });
    expect(await get(['ns', 'printers'])).toEqual([
      ['NAME', 'STATUS', 'AGE'],
      ['printers', 'Active', expect.stringMatching(/^\d+s$/)],
    ]);
  });

  it('leases: NAME HOLDER AGE', async () => {
    await apply({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l1', namespace: 'default' },
      spec: { holderIdentity: 'me_1' },
    });
    expect(await get(['lease', 'l1'])).toEqual([
      ['NAME', 'HOLDER', 'AGE'],
      ['l1', 'me_1', expect.stringMatching(/^\d+s$/)],
    ]);
  });

  it('nodes: NAME STATUS ROLES AGE VERSION, -o wide adds the addresses and system info', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/control-plane': '' } },
    });
    await ok([
      'patch',
      'node',
      'n1',
      '--subresource=status',
      '--type',
      'merge',
      '-p',
      JSON.stringify({
        status: {
          conditions: [{ type: 'Ready', status: 'True' }],
          addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
          nodeInfo: {
            kubeletVersion: 'v1.31.0',
            osImage: 'Ubuntu 24.04',
            kernelVersion: '6.8.0',
            containerRuntimeVersion: 'containerd://2.0.0',
            machineID: '',
            systemUUID: '',
            bootID: '',
            kubeProxyVersion: '',
            operatingSystem: 'linux',
            architecture: 'amd64',
          },
        },
      }),
    ]);
    await apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    const rows = await get(['nodes']);
    expect(rows).toEqual([
      ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'],
      ['n1', 'Ready', 'control-plane', expect.stringMatching(/^\d+s$/), 'v1.31.0'],
      ['n2', 'Unknown', '<none>', expect.stringMatching(/^\d+s$/)], // empty VERSION
    ]);
    const wide = await get(['node', 'n1', '-o', 'wide']);
    expect(wide[0]).toEqual([
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'OS-IMAGE',
      'KERNEL-VERSION',
      'CONTAINER-RUNTIME',
    ]);
    // KERNEL-VERSION carries the architecture (kube's printNode).
    expect(wide[1]).toEqual([
      'n1',
      'Ready',
      'control-plane',
      expect.stringMatching(/^\d+s$/),
      'v1.31.0',
      '10.0.0.1',
      '<none>',
      'Ubuntu 24.04',
      '6.8.0 (amd64)',
      'containerd://2.0.0',
    ]);
  });

  it('events: LAST SEEN TYPE REASON OBJECT MESSAGE; -o wide adds SUBOBJECT SOURCE FIRST SEEN COUNT NAME', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'm1.1', namespace: 'default' },
      involvedObject: { kind: 'Machine', name: 'm1', namespace: 'default', fieldPath: 'spec' },
      type: 'Normal',
      reason: 'Created',
      message: 'Machine created',
      firstTimestamp: daysAgo(20),
      lastTimestamp: daysAgo(10),
      count: 3,
      source: { component: 'machine-controller', host: 'h1' },
    });
    // By name: kube-apiserver records Events of its own in this namespace (e.g. ClusterIPNotAllocated at start-up).
    expect(await get(['events', 'm1.1'])).toEqual([
      ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
      ['10d', 'Normal', 'Created', 'machine/m1', 'Machine created'],
    ]);
    expect(await get(['events', 'm1.1', '-o', 'wide'])).toEqual([
      ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME'],
      [
        '10d',
        'Normal',
        'Created',
        'machine/m1',
        'spec',
        'machine-controller, h1',
        'Machine created',
        '20d',
        '3',
        'm1.1',
      ],
    ]);
  });

  it('events.k8s.io events print the same columns from regarding / note / series', async () => {
    await apply({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'n1.2', namespace: 'default' },
      regarding: { kind: 'Node', name: 'n1' },
      type: 'Warning',
      reason: 'Rebooted',
      note: 'Node rebooted',
      action: 'Reboot',
      eventTime: `${daysAgo(30).slice(0, -1)}.000000Z`,
      reportingController: 'kubelet',
      reportingInstance: 'n1',
      series: { count: 5, lastObservedTime: `${daysAgo(2).slice(0, -1)}.000000Z` },
    });
    const rows = await get(['events.v1.events.k8s.io', 'n1.2', '-o', 'wide']);
    expect(rows[0]).toEqual([
      'LAST SEEN',
      'TYPE',
      'REASON',
      'OBJECT',
      'SUBOBJECT',
      'SOURCE',
      'MESSAGE',
      'FIRST SEEN',
      'COUNT',
      'NAME',
    ]);
    // SUBOBJECT is empty: the row has one cell less.
    expect(rows[1]).toEqual([
      '2d',
      'Warning',
      'Rebooted',
      'node/n1',
      'kubelet, n1',
      'Node rebooted',
      '30d',
      '5',
      'n1.2',
    ]);
  });

  it('customresourcedefinitions: NAME CREATED AT', async () => {
    await apply({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Thing', plural: 'things' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    });
    const rows = await get(['crd', 'things.example.com']);
    expect(rows).toEqual([
      ['NAME', 'CREATED AT'],
      ['things.example.com', expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)],
    ]);
  });
});
