// The real kubectl against the kinds Machine deletion needs: get/describe/cordon/drain/cluster-info. The test plays the
// kubelet: it deletes terminating Pods with grace 0. kube-apiserver runs no disruption controller here, so on that
// target the test writes the PodDisruptionBudget status the controller would (support/disruption.ts settle).
import { randomUUID } from 'node:crypto';
import { kubectlSuite, tableRows } from './support/kubectl';
import { disruptionClient, namespace } from './support/disruption';

jest.setTimeout(90000);

const { suite, ok, run } = kubectlSuite('apiserver-drain-');
const c = disruptionClient(() => suite.ts);

// The kubelet's part of a graceful deletion: a terminating Pod goes with grace 0.
let kubelet: NodeJS.Timeout | undefined;
beforeAll(() => {
  kubelet = setInterval(async () => {
    try {
      const pods = await c.must('GET', '/api/v1/pods');
      for (const p of pods.items)
        if (p.metadata.deletionTimestamp && !p.metadata.finalizers?.length)
          await c.call('DELETE', c.podPath(p.metadata.namespace, p.metadata.name), { gracePeriodSeconds: 0 });
    } catch {
      // the server is starting or stopping
    }
  }, 200);
});
afterAll(() => clearInterval(kubelet));

const ESC = String.fromCharCode(27);
const stripColour = (s: string) =>
  s
    .split(ESC)
    .map((part, i) => (i ? part.replace(/^\[[0-9;]*m/, '') : part))
    .join('');
const node = (name: string) =>
  c.must('POST', '/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  });
const ssOwner = () => [
  { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: randomUUID(), controller: true },
];
const running = (nodeName: string, labels: Record<string, string> = {}) => ({
  nodeName,
  labels,
  phase: 'Running' as const,
  ready: true,
  ownerReferences: ssOwner(),
});

describe('kubectl and the kinds of Machine deletion', () => {
  it('kubectl get pdb,pv,pvc,svc,volumeattachments prints kube columns', async () => {
    const ns = await namespace(suite.ts, 'storage');
    await c.pdb(ns, 'web', { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } });
    await c.must('POST', '/api/v1/persistentvolumes', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-drain' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: 'fast',
        hostPath: { path: '/tmp/pv' },
        claimRef: { namespace: ns, name: 'data' },
      },
    });
    await c.must('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' },
    });
    const svc = await c.must('POST', `/api/v1/namespaces/${ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    // A ClusterIP allocated from the service range, and kube's defaults.
    expect(svc.spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      clusterIPs: [svc.spec.clusterIP],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    });
    expect(svc.spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    await c.must('POST', '/apis/storage.k8s.io/v1/volumeattachments', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'va-drain' },
      spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv-drain' } },
    });

    const out = await ok(['get', 'pdb,pvc,svc', '-n', ns]);
    expect(out).toMatch(/NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\n/);
    expect(out).toMatch(/poddisruptionbudget\.policy\/web\s+50%\s+N\/A\s+0\s+\d+s\n/);
    expect(out).toMatch(
      /NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\n/,
    );
    expect(out).toMatch(/persistentvolumeclaim\/data\s+Pending\s+fast\s+<unset>\s+\d+s\n/);
    expect(out).toMatch(/NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\n/);
    const ip = svc.spec.clusterIP.replace(/\./g, '\\.');
    expect(out).toMatch(new RegExp(`service/web\\s+ClusterIP\\s+${ip}\\s+<none>\\s+80/TCP\\s+\\d+s\\n`));
    const cluster = await ok(['get', 'pv/pv-drain', 'volumeattachments/va-drain']);
    expect(cluster).toMatch(
      /NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE\n/,
    );
    expect(cluster).toMatch(
      new RegExp(
        `persistentvolume/pv-drain\\s+1Gi\\s+RWO,ROX\\s+Retain\\s+Pending\\s+${ns}/data\\s+fast\\s+<unset>\\s+\\d+s\\n`,
      ),
    );
    expect(cluster).toMatch(/NAME\s+ATTACHER\s+PV\s+NODE\s+ATTACHED\s+AGE\n/);
    expect(cluster).toMatch(
      /volumeattachment\.storage\.k8s\.io\/va-drain\s+csi\.example\.com\s+pv-drain\s+n1\s+false\s+\d+s\n/,
    );
    // The PDB's shortName and its validation.
    const both = await run(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'both', namespace: ns },
        spec: { minAvailable: 1, maxUnavailable: 1, selector: {} },
      }),
    );
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('minAvailable and maxUnavailable cannot be both set');
  });

  it('kubectl get pods -A and describe node list the Pods of a node', async () => {
    const ns = await namespace(suite.ts, 'listed');
    await node('n-describe');
    await c.pod(ns, 'on-node', running('n-describe'));
    await c.pod(ns, 'done', { ...running('n-describe'), phase: 'Succeeded' });
    const rows = tableRows(await ok(['get', 'pods', '-A']));
    expect(rows[0]).toEqual(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(rows.find((r) => r[1] === 'on-node')?.slice(0, 5)).toEqual([ns, 'on-node', '0/1', 'Running', '0']);
    const described = await ok(['describe', 'node', 'n-describe']);
    // describe sends spec.nodeName=n,status.phase!=Succeeded,status.phase!=Failed: the finished Pod is not listed.
    expect(described).toMatch(/Non-terminated Pods:\s+\(1 in total\)/);
    expect(described).toMatch(new RegExp(`\\n\\s+${ns}\\s+on-node\\s`));
    expect(described).not.toMatch(/\sdone\s/);
  });

  it('kubectl cordon, then drain evicts the Pods (DaemonSet Pods ignored, emptyDir data deleted)', async () => {
    const ns = await namespace(suite.ts, 'drained');
    await node('n-drain');
    const ds = await c.must('POST', `/apis/apps/v1/namespaces/${ns}/daemonsets`, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image: 'busybox:1' }] } },
      },
    });
    await c.pod(ns, 'agent-x', {
      ...running('n-drain', { app: 'agent' }),
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata.uid, controller: true },
      ],
    });
    await c.pod(ns, 'web-1', running('n-drain', { app: 'web' }));
    await c.pod(ns, 'web-2', { ...running('n-drain', { app: 'web' }), volumes: [{ name: 'scratch', emptyDir: {} }] });
    await c.pdb(ns, 'web', { maxUnavailable: 2, selector: { matchLabels: { app: 'web' } } });
    await c.settle(ns, 'web', { disruptionsAllowed: 2, currentHealthy: 2, desiredHealthy: 0, expectedPods: 2 });

    expect(await ok(['cordon', 'n-drain'])).toBe('node/n-drain cordoned\n');
    expect((await c.must('GET', '/api/v1/nodes/n-drain')).spec.unschedulable).toBe(true);
    const r = await run(['drain', 'n-drain', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=20s']);
    expect(r.stderr).toContain(`Warning: ignoring DaemonSet-managed Pods: ${ns}/agent-x`);
    expect(r.stdout).toContain(`pod/web-1 evicted`);
    expect(r.stdout).toContain(`pod/web-2 evicted`);
    expect(r.stdout).toContain('node/n-drain drained');
    expect(r.code).toBe(0);
    expect((await c.getPod(ns, 'web-1')).code).toBe(404);
    expect((await c.getPod(ns, 'agent-x')).code).toBe(200);
  });

  it("kubectl drain is refused by a PodDisruptionBudget: exits non-zero with kube's message", async () => {
    const ns = await namespace(suite.ts, 'guarded');
    await node('n-guarded');
    await c.pod(ns, 'db-0', running('n-guarded', { app: 'db' }));
    await c.pdb(ns, 'db', { minAvailable: 1, selector: { matchLabels: { app: 'db' } } });
    await c.settle(ns, 'db', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 });
    const r = await run(['drain', 'n-guarded', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=20s']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `error when evicting pods/"db-0" -n "${ns}" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`,
    );
    expect(r.stderr).toMatch(/global timeout reached: 20s/);
    expect((await c.getPod(ns, 'db-0')).body.metadata.deletionTimestamp).toBeUndefined();
  });

  it('kubectl cluster-info prints the control plane URL and the cluster services', async () => {
    await c.must('POST', '/api/v1/namespaces/kube-system/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'kube-dns',
        labels: { 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
      },
      spec: { selector: { 'k8s-app': 'kube-dns' }, ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] },
    });
    const out = stripColour(await ok(['cluster-info']));
    expect(out).toContain(`Kubernetes control plane is running at ${suite.ts.conn.url}\n`);
    expect(out).toContain(
      `CoreDNS is running at ${suite.ts.conn.url}/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\n`,
    );
  });
});
