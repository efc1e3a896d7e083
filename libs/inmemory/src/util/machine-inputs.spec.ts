import { MACHINE_CONTROL_PLANE_LABEL } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { machineInputsChanged } from './machine-inputs';

const machine = (
  over: {
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    spec?: object;
    status?: object;
  } = {},
): KubeObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: {
    name: 'm',
    namespace: 'ns',
    generation: 'generation' in over ? over.generation : 1,
    labels: over.labels,
    annotations: over.annotations,
    deletionTimestamp: over.deletionTimestamp,
    resourceVersion: '1',
  },
  spec: over.spec ?? { clusterName: 'c', version: 'v1.31.0' },
  status: over.status,
});

describe('machineInputsChanged', () => {
  it('ignores status, annotation and other label changes', () => {
    expect(machineInputsChanged(machine(), machine({ status: { phase: 'Running' } }))).toBe(false);
    expect(machineInputsChanged(machine(), machine({ annotations: { a: 'b' } }))).toBe(false);
    expect(machineInputsChanged(machine(), machine({ labels: { 'cluster.x-k8s.io/set-name': 'ms-2' } }))).toBe(false);
  });

  it('passes spec (generation), deletion and control-plane label changes', () => {
    expect(
      machineInputsChanged(machine(), machine({ generation: 2, spec: { clusterName: 'c', version: 'v1.32.0' } })),
    ).toBe(true);
    expect(machineInputsChanged(machine(), machine({ deletionTimestamp: '2026-12-03T00:00:00Z' }))).toBe(true);
    expect(machineInputsChanged(machine(), machine({ labels: { [MACHINE_CONTROL_PLANE_LABEL]: '' } }))).toBe(true);
  });

  it('compares the spec when there is no generation', () => {
    expect(machineInputsChanged(machine({ generation: undefined }), machine({ generation: undefined }))).toBe(false);
    expect(
      machineInputsChanged(
        machine({ generation: undefined }),
        machine({ generation: undefined, spec: { clusterName: 'c', version: 'v1.32.0' } }),
      ),
    ).toBe(true);
  });
});
