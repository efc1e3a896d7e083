import {
  desiredExternalMetadataPatch,
  machineRequestsFor,
  observeBootstrap,
  observeInfrastructure,
} from './machine-external';
import type { MachineObject } from './types';

const machine = (): MachineObject =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { name: 'm', namespace: 'ns', uid: 'u-1' },
    spec: {
      clusterName: 'c',
      bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'b' } },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name: 'i' },
    },
  }) as MachineObject;

describe('external object rules', () => {
  it('adds the Machine as controller owner when there is none, plus the cluster-name label', () => {
    const patch = desiredExternalMetadataPatch(machine(), {
      apiVersion: 'x/v1',
      kind: 'TestMachine',
      metadata: { name: 'i', resourceVersion: '7' },
    });
    // No resourceVersion: unguarded, as upstream's client.MergeFrom.
    expect(patch).toEqual({
      metadata: {
        ownerReferences: [
          {
            apiVersion: 'cluster.x-k8s.io/v1beta2',
            kind: 'Machine',
            name: 'm',
            uid: 'u-1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
        labels: { 'cluster.x-k8s.io/cluster-name': 'c' },
      },
    });
  });
  it('keeps an existing controller and adds a plain owner reference; nothing when already adopted', () => {
    const other = { apiVersion: 'x/v1', kind: 'Other', name: 'o', uid: 'o-1', controller: true };
    const patch = desiredExternalMetadataPatch(machine(), {
      apiVersion: 'x/v1',
      kind: 'TestMachine',
      metadata: { name: 'i', ownerReferences: [other], labels: { 'cluster.x-k8s.io/cluster-name': 'c' } },
    });
    expect((patch!.metadata as { ownerReferences: object[] }).ownerReferences).toEqual([
      other,
      { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'm', uid: 'u-1' },
    ]);
    const adopted = {
      apiVersion: 'x/v1',
      kind: 'TestMachine',
      metadata: {
        name: 'i',
        ownerReferences: [{ ...other, uid: 'u-1' }],
        labels: { 'cluster.x-k8s.io/cluster-name': 'c' },
      },
    };
    expect(desiredExternalMetadataPatch(machine(), adopted)).toBeUndefined();
  });
  it('bootstrap data secret needs both dataSecretCreated and dataSecretName; sticky once on the Machine', () => {
    const cfg = (status: object) => ({
      object: { apiVersion: 'b/v1', kind: 'KubeadmConfig', metadata: { name: 'b' }, status },
      notFound: false,
    });
    expect(observeBootstrap(machine(), cfg({ initialization: { dataSecretCreated: true } }))).toEqual({
      dataSecretCreated: false,
    });
    expect(
      observeBootstrap(machine(), cfg({ initialization: { dataSecretCreated: true }, dataSecretName: 's' })),
    ).toEqual({ dataSecretCreated: true, dataSecretName: 's' });
    const m = machine();
    m.spec.bootstrap.dataSecretName = 'kept';
    expect(observeBootstrap(m, { notFound: true })).toEqual({ dataSecretCreated: true, dataSecretName: 'kept' });
  });
  it('infrastructure is provisioned only with a providerID, and stays provisioned', () => {
    const infra = (spec: object, status: object) => ({
      object: { apiVersion: 'i/v1', kind: 'TestMachine', metadata: { name: 'i' }, spec, status },
      notFound: false,
    });
    expect(observeInfrastructure(machine(), infra({}, { initialization: { provisioned: true } })).provisioned).toBe(
      false,
    );
    expect(
      observeInfrastructure(machine(), infra({ providerID: 'p://1' }, { initialization: { provisioned: true } })),
    ).toMatchObject({ provisioned: true, providerID: 'p://1' });
    const m = machine();
    m.status = { initialization: { infrastructureProvisioned: true } };
    expect(observeInfrastructure(m, { notFound: true }).provisioned).toBe(true);
  });
  it('maps external objects to every Machine owner reference', () => {
    expect(
      machineRequestsFor({
        apiVersion: 'x/v1',
        kind: 'X',
        metadata: {
          name: 'x',
          namespace: 'ns',
          ownerReferences: [
            { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'a', uid: '1' },
            { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: 'ms', uid: '2', controller: true },
            { apiVersion: 'other.io/v1', kind: 'Machine', name: 'nope', uid: '3' },
          ],
        },
      }),
    ).toEqual([{ namespace: 'ns', name: 'a' }]);
  });
});
