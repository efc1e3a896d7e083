import type { KubeObject } from '@capi/apimachinery';
import { ownerInputsChanged } from './machine-owners';

const ms = (
  over: {
    generation?: number;
    replicas?: number;
    version?: string;
    after?: string;
    owner?: string;
    status?: object;
  } = {},
): KubeObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachineSet',
  metadata: {
    name: 'ms',
    namespace: 'ns',
    generation: over.generation ?? 1,
    ownerReferences: [
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'MachineDeployment',
        name: over.owner ?? 'md',
        uid: 'u',
        controller: true,
      },
    ],
  },
  spec: {
    replicas: over.replicas ?? 3,
    rollout: over.after ? { after: over.after } : undefined,
    template: { spec: { clusterName: 'c', version: over.version ?? 'v1.31.0' } },
  },
  status: over.status ?? {},
});

describe('ownerInputsChanged (which owner updates re-reconcile the Machines)', () => {
  it('a replica change bumps the generation but changes nothing a Machine reads', () => {
    expect(ownerInputsChanged(ms(), ms({ generation: 2, replicas: 4 }))).toBe(false);
  });

  it('status-only updates do not count either', () => {
    expect(ownerInputsChanged(ms(), ms({ status: { replicas: 2 } }))).toBe(false);
  });

  it('the template, rollout.after and the owner references do', () => {
    expect(ownerInputsChanged(ms(), ms({ generation: 2, version: 'v1.32.0' }))).toBe(true);
    expect(ownerInputsChanged(ms(), ms({ generation: 2, after: '2026-12-03T00:00:00Z' }))).toBe(true);
    expect(ownerInputsChanged(ms(), ms({ owner: 'other' }))).toBe(true);
  });
});
