import { CLUSTER_API_VERSION, MACHINE_CONTROL_PLANE_LABEL } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { MapContext } from '@capi/controller-runtime';
import { controlPlaneMachineToCluster, machineDeploymentToCluster } from './watch-map';

const cluster = (name: string, cpInitialized?: 'True' | 'False'): KubeObject =>
  ({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { namespace: 'ns', name },
    status: cpInitialized
      ? {
          conditions: [{ type: 'ControlPlaneInitialized', status: cpInitialized, reason: 'R', lastTransitionTime: '' }],
        }
      : {},
  }) as KubeObject;

const machine = (opts: { controlPlane?: boolean; nodeRef?: boolean; cluster?: string }): KubeObject =>
  ({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    metadata: { namespace: 'ns', name: 'm', labels: opts.controlPlane ? { [MACHINE_CONTROL_PLANE_LABEL]: '' } : {} },
    spec: { clusterName: opts.cluster ?? 'c1' },
    status: opts.nodeRef ? { nodeRef: { name: 'node-1' } } : {},
  }) as KubeObject;

const withClusters = (...clusters: KubeObject[]): MapContext => ({
  cache: {
    listStored: ((apiVersion: string, kind: string, opts?: { namespace?: string }) =>
      kind === 'Cluster'
        ? clusters.filter((c) => c.metadata.namespace === opts?.namespace)
        : []) as unknown as MapContext['cache']['listStored'],
  },
});

// Upstream core/reconcilers/cluster/cluster_controller_test.go TestClusterReconcilerNodeRef (its four cases), and the
// initialized / missing Cluster cases of controlPlaneMachineToCluster.
describe('controlPlaneMachineToCluster', () => {
  it('maps a control-plane Machine with a Node to its Cluster while the control plane is not initialized', () => {
    const ctx = withClusters(cluster('c1'));
    expect(controlPlaneMachineToCluster(machine({ controlPlane: true, nodeRef: true }), ctx)).toEqual([
      { namespace: 'ns', name: 'c1' },
    ]);
    expect(
      controlPlaneMachineToCluster(
        machine({ controlPlane: true, nodeRef: true }),
        withClusters(cluster('c1', 'False')),
      ),
    ).toEqual([{ namespace: 'ns', name: 'c1' }]);
  });

  it('maps nothing for a worker Machine, a Machine without Node, an initialized control plane, or no Cluster', () => {
    const ctx = withClusters(cluster('c1'));
    expect(controlPlaneMachineToCluster(machine({ nodeRef: true }), ctx)).toEqual([]);
    expect(controlPlaneMachineToCluster(machine({ controlPlane: true }), ctx)).toEqual([]);
    expect(controlPlaneMachineToCluster(machine({}), ctx)).toEqual([]);
    expect(
      controlPlaneMachineToCluster(machine({ controlPlane: true, nodeRef: true }), withClusters(cluster('c1', 'True'))),
    ).toEqual([]);
    expect(controlPlaneMachineToCluster(machine({ controlPlane: true, nodeRef: true, cluster: 'gone' }), ctx)).toEqual(
      [],
    );
  });
});

describe('machineDeploymentToCluster', () => {
  it('maps a MachineDeployment to its spec.clusterName', () => {
    const md = {
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineDeployment',
      metadata: { namespace: 'ns', name: 'md' },
    };
    expect(machineDeploymentToCluster({ ...md, spec: { clusterName: 'c1' } } as KubeObject)).toEqual([
      { namespace: 'ns', name: 'c1' },
    ]);
    expect(machineDeploymentToCluster({ ...md, spec: {} } as KubeObject)).toEqual([]);
  });
});
