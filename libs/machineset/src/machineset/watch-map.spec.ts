import { CLUSTER_NAME_FIELD, controlledBy } from '@capi/index';
import { CLUSTER_API_VERSION } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { MapContext } from '@capi/controller-runtime';
import {
  machineSetRequestsForCluster,
  machineSetRequestsForMachineDeployment,
  machineSetRequestsForOrphanMachine,
} from './watch-map';

describe('MachineSet watch map functions', () => {
  const ms = (name: string, matchLabels: Record<string, string>): KubeObject => ({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineSet',
    metadata: { name, namespace: 'ns' },
    spec: { clusterName: 'c1', selector: { matchLabels } },
  });
  const machine = (labels: Record<string, string>, controller?: string): KubeObject => ({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    metadata: {
      name: 'm1',
      namespace: 'ns',
      labels,
      ownerReferences: controller
        ? [{ apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet', name: controller, uid: 'u', controller: true }]
        : undefined,
    },
  });
  // The cache passed in by the controller: records what is asked, answers with the stored MachineSets.
  function context(stored: KubeObject[]) {
    const asked: unknown[][] = [];
    const ctx: MapContext = {
      cache: {
        listStored: <T extends KubeObject>(...args: unknown[]) => {
          asked.push(args);
          return stored as T[];
        },
      },
    };
    return { ctx, asked };
  }

  it('maps a MachineDeployment to the MachineSets it controls, through the controller-owner index', () => {
    const { ctx, asked } = context([ms('ms-a', { a: '1' })]);
    const md: KubeObject = {
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineDeployment',
      metadata: { name: 'md', namespace: 'ns' },
    };
    expect(machineSetRequestsForMachineDeployment(md, ctx)).toEqual([{ namespace: 'ns', name: 'ms-a' }]);
    expect(asked).toEqual([[CLUSTER_API_VERSION, 'MachineSet', controlledBy('ns', 'MachineDeployment', 'md')]]);
  });

  it('maps an orphan Machine to the MachineSets whose selector matches it, and a controlled one to none', () => {
    const { ctx, asked } = context([ms('ms-a', { a: '1' }), ms('ms-b', { b: '1' }), ms('ms-empty', {})]);
    expect(machineSetRequestsForOrphanMachine(machine({ a: '1' }), ctx)).toEqual([{ namespace: 'ns', name: 'ms-a' }]);
    expect(machineSetRequestsForOrphanMachine(machine({ a: '1' }, 'ms-a'), ctx)).toEqual([]);
    expect(asked).toHaveLength(1);
  });

  it('maps a Cluster to its MachineSets through the spec.clusterName index', () => {
    const { ctx, asked } = context([ms('ms-a', { a: '1' })]);
    const cluster: KubeObject = {
      apiVersion: CLUSTER_API_VERSION,
      kind: 'Cluster',
      metadata: { name: 'c1', namespace: 'ns' },
    };
    expect(machineSetRequestsForCluster(cluster, ctx)).toEqual([{ namespace: 'ns', name: 'ms-a' }]);
    expect(asked).toEqual([
      [CLUSTER_API_VERSION, 'MachineSet', { namespace: 'ns', matchingFields: { [CLUSTER_NAME_FIELD]: 'c1' } }],
    ]);
  });
});
