// KCP's upkeep of the workload cluster's kubeadm objects against a real API server standing in for the workload
// cluster (upstream controlplane/kubeadm/pkg/workload_cluster_coredns_test.go TestUpdateCoreDNS runs on envtest the
// same way), plus the I/O cases of TestUpdateCoreDNSCorefile, TestUpdateCoreDNSDeployment, TestEnsureKubeadmPermissions,
// TestUpdateKubeProxyImageInfo and TestUpdateUpdateClusterConfigurationInKubeadmConfigMap.
import type { KubeadmControlPlane } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { KubeClient } from '@capi/controller-runtime';
import { clientFor, startEnvtest, type Envtest } from '@capi/envtest';
import type { CoreDnsMigrator } from '../src/coredns';
import { WorkloadUpkeep } from '../src/workload-upkeep-io';

jest.setTimeout(60_000);

const KS = 'kube-system';
const cm = (name: string, data: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: KS }, data }) as KubeObject;
const deployment = (image: string, volumeKey = 'Corefile'): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'coredns', namespace: KS },
    spec: {
      selector: { matchLabels: { app: 'coredns' } },
      template: {
        metadata: { labels: { app: 'coredns' } },
        spec: {
          containers: [{ name: 'coredns', image }],
          volumes: [
            { name: 'config-volume', configMap: { name: 'coredns', items: [{ key: volumeKey, path: 'Corefile' }] } },
          ],
        },
      },
    },
  }) as KubeObject;
const expectedCorefile = 'coredns-core-file';
const corednsCM = cm('coredns', { Corefile: expectedCorefile });
const updatedCM = cm('coredns', { Corefile: 'updated-core-file', 'Corefile-backup': expectedCorefile });
const badCM = cm('coredns', { BadCoreFileKey: '' });
const kubeadmCM = cm('kubeadm-config', {
  ClusterConfiguration:
    'apiServer:\napiVersion: kubeadm.k8s.io/v1beta3\ndns:\n  type: CoreDNS\nimageRepository: k8s.gcr.io\nkind: ClusterConfiguration\n',
});
const kubeadmCM181 = cm('kubeadm-config', {
  ClusterConfiguration:
    'apiServer:\napiVersion: kubeadm.k8s.io/v1beta3\ndns:\n  type: CoreDNS\n  imageTag: v1.8.1\nimageRepository: k8s.gcr.io\nkind: ClusterConfiguration\n',
});
const kcp = (
  clusterConfiguration: Record<string, unknown>,
  annotations?: Record<string, string>,
): KubeadmControlPlane =>
  ({
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlane',
    metadata: { name: 'cp', namespace: 'default', ...(annotations ? { annotations } : {}) },
    spec: { version: 'v1.23.0', kubeadmConfigSpec: { clusterConfiguration }, machineTemplate: {} as any },
  }) as KubeadmControlPlane;
// "Have to set a non-zero value otherwise UpdateCoreDNS returns early."
const validKCP = kcp({ certificatesDir: '/tmp/certs', dns: {} });

class FakeMigrator implements CoreDnsMigrator {
  called = false;
  constructor(private readonly result: { corefile?: string; error?: string }) {}
  migrate(): string {
    this.called = true;
    if (this.result.error) throw new Error(this.result.error);
    return this.result.corefile ?? '';
  }
}

describe('WorkloadUpkeep against an API server as the workload cluster (envtest)', () => {
  let env: Envtest;
  let client: KubeClient;
  const ref = (o: KubeObject) => ({
    apiVersion: o.apiVersion,
    kind: o.kind,
    namespace: o.metadata.namespace,
    name: o.metadata.name!,
  });
  const cleanup = async () => {
    for (const o of [deployment('x'), corednsCM, kubeadmCM, kubeProxy('x')])
      await client.delete(ref(o)).catch(() => undefined);
    await client
      .delete({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        name: 'kubeadm:apiserver-kubelet-client',
      })
      .catch(() => undefined);
  };
  const kubeProxy = (image: string): KubeObject =>
    ({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'kube-proxy', namespace: KS },
      spec: {
        selector: { matchLabels: { app: 'kube-proxy' } },
        template: {
          metadata: { labels: { app: 'kube-proxy' } },
          spec: { containers: [{ name: 'kube-proxy', image }] },
        },
      },
    }) as KubeObject;
  const get = (o: KubeObject) => client.get<any>(ref(o));

  beforeAll(async () => {
    env = await startEnvtest();
    client = clientFor(env);
    if (!(await client.tryGet({ apiVersion: 'v1', kind: 'Namespace', name: KS })))
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: KS } });
  });
  afterAll(async () => {
    client?.close();
    await env?.stop();
  });
  afterEach(cleanup);

  describe('TestUpdateCoreDNS', () => {
    const withDNS = (dns: Record<string, string>) => kcp({ dns });
    const cases: {
      name: string;
      kcp: KubeadmControlPlane;
      objs: KubeObject[];
      migrator?: FakeMigrator;
      expectErr?: boolean;
      expectImage?: string;
    }[] = [
      {
        name: 'returns early without error if skip core dns annotation is present',
        kcp: kcp({ dns: {} }, { 'controlplane.cluster.x-k8s.io/skip-coredns': '' }),
        objs: [badCM],
      },
      { name: 'returns early without error if CoreDNS info is not found', kcp: validKCP, objs: [] },
      {
        name: 'returns error if there was a problem retrieving CoreDNS info',
        kcp: validKCP,
        objs: [badCM],
        expectErr: true,
      },
      {
        name: 'returns early without error if CoreDNS fromImage == ToImage',
        kcp: validKCP,
        objs: [deployment('k8s.gcr.io/some-folder/coredns:1.6.2'), corednsCM],
      },
      {
        name: 'returns error if validation of CoreDNS image tag fails',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io/some-folder/coredns', imageTag: '1.1.2' }),
        objs: [deployment('k8s.gcr.io/some-folder/coredns:1.6.2'), corednsCM],
        expectErr: true,
      },
      {
        name: 'returns error if unable to update CoreDNS image info in kubeadm config map',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io/some-folder/coredns', imageTag: '1.7.2' }),
        objs: [deployment('k8s.gcr.io/some-folder/coredns:1.6.2'), corednsCM],
        expectErr: true,
      },
      {
        name: 'returns error if unable to update CoreDNS corefile',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io/some-folder/coredns', imageTag: '1.7.2' }),
        migrator: new FakeMigrator({ error: 'failed to migrate' }),
        objs: [deployment('k8s.gcr.io/some-folder/coredns:1.6.2'), corednsCM, kubeadmCM],
        expectErr: true,
      },
      {
        name: 'updates everything successfully',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io/some-repo', imageTag: '1.7.2' }),
        migrator: new FakeMigrator({ corefile: 'updated-core-file' }),
        objs: [deployment('k8s.gcr.io/some-folder/coredns:1.6.2'), corednsCM, kubeadmCM],
        expectImage: 'k8s.gcr.io/some-repo/coredns:1.7.2',
      },
      {
        name: 'updates everything successfully to v1.8.0 with a custom repo should not change the image name',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io/some-repo', imageTag: '1.8.0' }),
        migrator: new FakeMigrator({ corefile: 'updated-core-file' }),
        objs: [deployment('k8s.gcr.io/some-repo/coredns:1.7.0'), corednsCM, kubeadmCM],
        expectImage: 'k8s.gcr.io/some-repo/coredns:1.8.0',
      },
      {
        name: 'kubeadm defaults, upgrade from k8s.gcr.io/coredns:1.6.7 to k8s.gcr.io/coredns:1.7.0',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io', imageTag: '1.7.0' }),
        migrator: new FakeMigrator({ corefile: 'updated-core-file' }),
        objs: [deployment('k8s.gcr.io/coredns:1.6.7'), corednsCM, kubeadmCM],
        expectImage: 'k8s.gcr.io/coredns:1.7.0',
      },
      {
        name: 'kubeadm defaults, stay on k8s.gcr.io/coredns:1.7.0',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io', imageTag: '1.7.0' }),
        migrator: new FakeMigrator({ corefile: 'updated-core-file' }),
        objs: [deployment('k8s.gcr.io/coredns:1.7.0'), corednsCM, kubeadmCM],
      },
      {
        name: 'kubeadm defaults, upgrade from k8s.gcr.io/coredns:1.7.0 to k8s.gcr.io/coredns/coredns:v1.8.0',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io', imageTag: 'v1.8.0' }),
        migrator: new FakeMigrator({ corefile: 'updated-core-file' }),
        objs: [deployment('k8s.gcr.io/coredns:1.7.0'), corednsCM, kubeadmCM],
        expectImage: 'k8s.gcr.io/coredns/coredns:v1.8.0',
      },
      {
        name: 'kubeadm defaults, stay on k8s.gcr.io/coredns/coredns:v1.8.0',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io', imageTag: 'v1.8.0' }),
        migrator: new FakeMigrator({ corefile: 'updated-core-file' }),
        objs: [deployment('k8s.gcr.io/coredns/coredns:v1.8.0'), corednsCM, kubeadmCM],
      },
      {
        name: 'stay on k8s.gcr.io/coredns/coredns:v1.8.1',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io', imageTag: 'v1.8.1' }),
        migrator: new FakeMigrator({ corefile: 'updated-core-file' }),
        objs: [deployment('k8s.gcr.io/coredns/coredns:v1.8.1'), updatedCM, kubeadmCM181],
        expectImage: 'k8s.gcr.io/coredns/coredns:v1.8.1',
      },
      {
        name: 'returns early without error',
        kcp: withDNS({ imageRepository: 'k8s.gcr.io', imageTag: 'v1.8.1' }),
        objs: [deployment('k8s.gcr.io/coredns/coredns:v1.8.1'), updatedCM, kubeadmCM181],
      },
    ];
    it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, tt) => {
      for (const o of tt.objs) await client.create(structuredClone(o));
      const before = tt.objs.some((o) => o.metadata.name === 'kubeadm-config') ? await get(kubeadmCM) : undefined;
      const run = new WorkloadUpkeep(client, tt.migrator).updateCoreDNS(tt.kcp);
      if (tt.expectErr) return expect(run).rejects.toThrow();
      await run;
      if (tt.expectImage) {
        const dns = tt.kcp.spec.kubeadmConfigSpec!.clusterConfiguration!.dns as Record<string, string>;
        const config = (await get(kubeadmCM)).data.ClusterConfiguration;
        expect(config).toContain(dns.imageTag);
        expect(config).toContain(dns.imageRepository);
        expect((await get(corednsCM)).data).toEqual({
          Corefile: 'updated-core-file',
          'Corefile-backup': expectedCorefile,
        });
        const d = await get(deployment('x'));
        expect(d.spec.template.spec.containers[0].image).toBe(tt.expectImage);
        expect(d.spec.template.spec.volumes[0].configMap.items[0].key).toBe('Corefile');
      } else if (before) {
        // Nothing written where nothing was to be done.
        expect((await get(kubeadmCM)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      }
    });

    it('with the ported Corefile migration: v1.11.3 → v1.12.0 keeps a kubeadm Corefile working', async () => {
      const corefile =
        '.:53 {\n    errors\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n        pods insecure\n    }\n    forward . /etc/resolv.conf\n}\n';
      await client.create(deployment('registry.k8s.io/coredns/coredns:v1.11.3'));
      await client.create(cm('coredns', { Corefile: corefile }));
      await client.create(kubeadmCM);
      await new WorkloadUpkeep(client).updateCoreDNS(kcp({ dns: { imageTag: 'v1.12.0' } }));
      expect((await get(corednsCM)).data).toEqual({ Corefile: corefile, 'Corefile-backup': corefile });
      expect((await get(deployment('x'))).spec.template.spec.containers[0].image).toBe(
        'registry.k8s.io/coredns/coredns:v1.12.0',
      );
    });
  });

  describe('TestUpdateCoreDNSCorefile / TestUpdateCoreDNSDeployment', () => {
    const kcpTo172 = kcp({ dns: { imageRepository: 'k8s.gcr.io', imageTag: '1.7.2' } });
    it('returns error if migrate failed to update corefile: nothing is written', async () => {
      await client.create(deployment('k8s.gcr.io/coredns:1.6.2'));
      await client.create(corednsCM);
      await client.create(kubeadmCM);
      const migrator = new FakeMigrator({ error: 'failed to migrate' });
      await expect(new WorkloadUpkeep(client, migrator).updateCoreDNS(kcpTo172)).rejects.toThrow(
        /unable to migrate CoreDNS corefile: failed to migrate/,
      );
      expect(migrator.called).toBe(true);
      expect((await get(corednsCM)).data).toEqual({ Corefile: expectedCorefile });
    });

    it('creates a backup of the corefile (the Deployment gone in between fails after the backup)', async () => {
      await client.create(corednsCM);
      await client.create(kubeadmCM);
      const upkeep = new WorkloadUpkeep(client, new FakeMigrator({ corefile: 'updated-core-file' }));
      // The info is read with the Deployment present, which then goes away (upstream's test leaves it out).
      await client.create(deployment('k8s.gcr.io/coredns:1.6.2'));
      const info = await (upkeep as any).coreDnsInfo({ dns: { imageTag: '1.7.2' } });
      await client.delete(ref(deployment('x')));
      await expect((upkeep as any).updateCorefile(info)).rejects.toThrow();
      expect((await get(corednsCM)).data).toEqual({ Corefile: expectedCorefile, 'Corefile-backup': expectedCorefile });
    });
  });

  describe('TestEnsureKubeadmPermissions (I/O)', () => {
    const crb = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      name: 'kubeadm:apiserver-kubelet-client',
    };
    it('creates the ClusterRoleBinding for K8s <= 1.37', async () => {
      await new WorkloadUpkeep(client).ensureKubeadmPermissions('1.37.0');
      expect(await client.get<any>(crb)).toMatchObject({
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kubelet-api-admin' },
        subjects: [{ kind: 'User', name: 'kube-apiserver-kubelet-client' }],
      });
    });
    it.each(['1.37.0', '1.38.0'])('leaves an existing one alone (%s)', async (version) => {
      await client.create({
        apiVersion: crb.apiVersion,
        kind: crb.kind,
        metadata: { name: crb.name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kubelet-api-admin' },
        subjects: [{ kind: 'User', name: 'someone-else' }],
      } as KubeObject);
      await new WorkloadUpkeep(client).ensureKubeadmPermissions(version);
      // kube-apiserver defaults a User subject's apiGroup; the embedded server does not default RBAC fields.
      expect((await client.get<any>(crb)).subjects).toEqual([
        expect.objectContaining({ kind: 'User', name: 'someone-else' }),
      ]);
    });
    it('creates nothing for K8s >= 1.38', async () => {
      await new WorkloadUpkeep(client).ensureKubeadmPermissions('1.38.0');
      expect(await client.tryGet(crb)).toBeUndefined();
    });
  });

  describe('TestUpdateKubeProxyImageInfo / TestUpdateUpdateClusterConfigurationInKubeadmConfigMap (I/O)', () => {
    it('patches the kube-proxy image', async () => {
      await client.create(kubeProxy('k8s.gcr.io/kube-proxy:v1.16.2'));
      await new WorkloadUpkeep(client).updateKubeProxyImageInfo(kcp({}));
      expect((await get(kubeProxy('x'))).spec.template.spec.containers[0].image).toBe('k8s.gcr.io/kube-proxy:v1.23.0');
    });
    it('does not update image repository when no kube-proxy update is requested (a bad image is not even read)', async () => {
      await client.create(kubeProxy('k8s.gcr.io/kube-proxy@sha256:47bfd'));
      await new WorkloadUpkeep(client).updateKubeProxyImageInfo(
        kcp({}, { 'controlplane.cluster.x-k8s.io/skip-kube-proxy': '' }),
      );
      expect((await get(kubeProxy('x'))).spec.template.spec.containers[0].image).toBe(
        'k8s.gcr.io/kube-proxy@sha256:47bfd',
      );
    });
    it('a missing kube-proxy DaemonSet is not an error', () =>
      expect(new WorkloadUpkeep(client).updateKubeProxyImageInfo(kcp({}))).resolves.toBeUndefined());
    it('fails if missing config map', () =>
      expect(new WorkloadUpkeep(client).updateClusterConfiguration('1.17.2')).rejects.toThrow(
        /failed to get kubeadmConfigMap/,
      ));
    it('updates the ConfigMap once and then leaves it', async () => {
      await client.create(
        cm('kubeadm-config', {
          ClusterConfiguration:
            'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nkubernetesVersion: v1.16.1\n',
        }),
      );
      const upkeep = new WorkloadUpkeep(client);
      await upkeep.updateClusterConfiguration('1.23.2');
      const first = await get(kubeadmCM);
      expect(first.data.ClusterConfiguration).toContain('kubernetesVersion: v1.23.2');
      await upkeep.updateClusterConfiguration('1.23.2');
      expect((await get(kubeadmCM)).metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    });
  });
});
