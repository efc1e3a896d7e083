// Ported from controlplane/kubeadm/webhooks/admission/kubeadmcontrolplane_scale_test.go TestKubeadmControlPlaneValidateScale.
import type { KubeadmControlPlane } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { KubeadmControlPlaneScaleValidator, type Scale } from './kubeadmcontrolplane-scale';

const kcpManagedEtcd = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  metadata: { name: 'kcp-managed-etcd', namespace: 'foo' },
  spec: {
    machineTemplate: {
      spec: { infrastructureRef: { apiGroup: 'test', kind: 'UnknownInfraMachine', name: 'infraTemplate' } },
    },
    replicas: 1,
    kubeadmConfigSpec: {
      clusterConfiguration: { dns: { imageRepository: 'registry.k8s.io/coredns', imageTag: '1.6.5' } },
    },
    version: 'v1.16.6',
  },
} as KubeadmControlPlane;
const kcpExternalEtcd = structuredClone(kcpManagedEtcd);
kcpExternalEtcd.metadata.name = 'kcp-external-etcd';
kcpExternalEtcd.spec.kubeadmConfigSpec!.clusterConfiguration = { etcd: { external: { endpoints: ['1.2.3.4'] } } };

const store = new Map([kcpManagedEtcd, kcpExternalEtcd].map((k) => [`${k.metadata.namespace}/${k.metadata.name}`, k]));
const validator = new KubeadmControlPlaneScaleValidator(async (ns, name) => {
  const k = store.get(`${ns}/${name}`);
  if (!k) throw new Error(`kubeadmcontrolplanes.controlplane.cluster.x-k8s.io "${name}" not found`);
  return k;
});

const scale = (name: string, replicas: number): Scale => ({
  apiVersion: 'autoscaling/v1',
  kind: 'Scale',
  metadata: { name, namespace: 'foo' },
  spec: { replicas },
});

describe('KubeadmControlPlane scale validation (TestKubeadmControlPlaneValidateScale)', () => {
  it.each([
    ['should return error when trying to scale to zero', 'kcp-managed-etcd', 0, 'replicas should be greater than zero'],
    [
      'should return error when trying to scale to a negative number',
      'kcp-managed-etcd',
      -1,
      'replicas should be greater than zero',
    ],
    [
      'should return error when trying to scale to even number of replicas with managed etcd',
      'kcp-managed-etcd',
      2,
      'replicas cannot be an even number when etcd is stacked',
    ],
    ['should allow odd number of replicas with managed etcd', 'kcp-managed-etcd', 3, ''],
    ['should allow even number of replicas with external etcd', 'kcp-external-etcd', 4, ''],
    ['should allow odd number of replicas with external etcd', 'kcp-external-etcd', 3, ''],
  ])('%s', async (_name, kcpName, replicas, message) => {
    const s = scale(kcpName, replicas);
    const run = validator.validateUpdate(s, s);
    if (message === '') {
      await expect(run).resolves.toEqual([]);
    } else {
      const err = await run.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AdmissionError);
      expect((err as AdmissionError).status).toMatchObject({ code: 403, reason: 'Forbidden', message });
    }
  });

  it('answers 500 when the KubeadmControlPlane cannot be read', async () => {
    const s = scale('missing', 3);
    const err = await validator.validateUpdate(s, s).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as AdmissionError).status).toMatchObject({
      code: 500,
      message:
        'failed to get KubeadmControlPlane foo/missing: kubeadmcontrolplanes.controlplane.cluster.x-k8s.io "missing" not found',
    });
  });
});
