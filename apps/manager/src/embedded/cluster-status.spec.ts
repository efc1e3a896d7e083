import type { Cluster } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { decideClusterWrites } from './cluster-status';

const cluster = (spec: Partial<Cluster['spec']> = {}, initialization?: Record<string, boolean>): Cluster =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'c', namespace: 'ns' },
    spec,
    ...(initialization ? { status: { initialization } } : {}),
  }) as Cluster;
const infra = (provisioned: boolean, endpoint?: { host: string; port: number }): KubeObject => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1',
  kind: 'InMemoryCluster',
  metadata: { name: 'c', namespace: 'ns' },
  spec: endpoint ? { controlPlaneEndpoint: endpoint } : {},
  status: { initialization: { provisioned } },
});
const kcp = (controlPlaneInitialized: boolean): KubeObject => ({
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  metadata: { name: 'c-cp', namespace: 'ns' },
  status: { initialization: { controlPlaneInitialized } },
});

describe('decideClusterWrites', () => {
  it('writes nothing while neither infrastructure nor control plane report anything', () => {
    expect(decideClusterWrites({ cluster: cluster() })).toEqual({});
    expect(decideClusterWrites({ cluster: cluster(), infraCluster: infra(false), controlPlane: kcp(false) })).toEqual(
      {},
    );
  });

  it('copies the infrastructure endpoint and marks infrastructure provisioned', () => {
    const endpoint = { host: '127.0.0.1', port: 6443 };
    expect(decideClusterWrites({ cluster: cluster(), infraCluster: infra(true, endpoint) })).toEqual({
      controlPlaneEndpoint: endpoint,
      initialization: { infrastructureProvisioned: true },
    });
  });

  it('keeps an endpoint the Cluster already has', () => {
    const mine = { host: 'lb.example', port: 443 };
    const w = decideClusterWrites({
      cluster: cluster({ controlPlaneEndpoint: mine }),
      infraCluster: infra(true, { host: '127.0.0.1', port: 6443 }),
    });
    expect(w.controlPlaneEndpoint).toBeUndefined();
  });

  it('marks the control plane initialized from the control plane object, keeping flags already set', () => {
    expect(
      decideClusterWrites({
        cluster: cluster({}, { infrastructureProvisioned: true }),
        infraCluster: infra(true),
        controlPlane: kcp(true),
      }),
    ).toEqual({
      initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true },
    });
  });

  it('never turns a flag off (initialization records a one-time event) and is a no-op once both are set', () => {
    const done = cluster({}, { infrastructureProvisioned: true, controlPlaneInitialized: true });
    expect(decideClusterWrites({ cluster: done, infraCluster: infra(false), controlPlane: kcp(false) })).toEqual({});
    expect(decideClusterWrites({ cluster: done })).toEqual({});
  });
});
