import {
  CLUSTER_API_VERSION,
  MACHINE_CONTROL_PLANE_LABEL,
  PAUSED_ANNOTATION,
  type Cluster,
  type Machine,
} from '@capi/api';
import { INMEMORY_API_VERSION, type InMemoryMachine } from '../api/types';
import {
  desiredMachineStatus,
  initialHostState,
  isPaused,
  machinePhase,
  ownerMachineName,
  provisioningProgress,
} from './decide';

const clock = (iso: string) => ({ now: () => Date.parse(iso) });

const machine = (over: Partial<Machine['spec']> = {}, labels: Record<string, string> = {}): Machine => ({
  apiVersion: CLUSTER_API_VERSION,
  kind: 'Machine',
  metadata: { name: 'm1', namespace: 'ns', labels },
  spec: {
    clusterName: 'c',
    bootstrap: {},
    infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'InMemoryMachine', name: 'm1' },
    version: 'v1.31.0',
    ...over,
  },
});
const infra = (status?: InMemoryMachine['status']): InMemoryMachine => ({
  apiVersion: INMEMORY_API_VERSION,
  kind: 'InMemoryMachine',
  metadata: { name: 'm1', namespace: 'ns', generation: 3 },
  spec: { resources: { cpu: 4 }, image: 'img' },
  ...(status ? { status } : {}),
});

describe('ownerMachineName', () => {
  it('takes the core-group Machine ownerReference only', () => {
    expect(
      ownerMachineName({
        metadata: { ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'a' }] },
      }),
    ).toBe('a');
    expect(
      ownerMachineName({
        metadata: { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Machine', name: 'a' }] },
      }),
    ).toBeUndefined();
    expect(ownerMachineName({ metadata: {} })).toBeUndefined();
  });
});

describe('isPaused', () => {
  const cluster = (paused?: boolean): Cluster => ({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { name: 'c' },
    spec: { paused },
  });
  it('is true for a paused Cluster or a paused annotation on the object', () => {
    expect(isPaused(cluster(true), { metadata: {} })).toBe(true);
    expect(isPaused(cluster(), { metadata: { annotations: { [PAUSED_ANNOTATION]: '' } } })).toBe(true);
    expect(isPaused(cluster(false), { metadata: {} })).toBe(false);
  });
});

describe('provisioningProgress / machinePhase', () => {
  it('is done once the delay has passed, else reports what remains', () => {
    expect(provisioningProgress(1000, 1500, 1500)).toEqual({ done: false, remainingMs: 1000 });
    expect(provisioningProgress(1000, 2500, 1500)).toEqual({ done: true });
    expect(provisioningProgress(1000, 1000, 0)).toEqual({ done: true });
  });

  it('waits for bootstrap data before anything else', () => {
    expect(machinePhase(machine(), { done: true })).toEqual({ phase: 'WaitingForBootstrapData' });
    expect(machinePhase(machine({ bootstrap: { dataSecretName: 'd' } }), { done: false, remainingMs: 7 })).toEqual({
      phase: 'Booting',
      remainingMs: 7,
    });
    expect(machinePhase(machine({ bootstrap: { dataSecretName: 'd' } }), { done: true })).toEqual({ phase: 'Running' });
  });
});

describe('initialHostState', () => {
  it('names the Node after the Machine, with its version, provider ID, the control-plane role and its files', () => {
    const files = { '/tmp/a': 'sha256:00' };
    const s = initialHostState(machine({}, { [MACHINE_CONTROL_PLANE_LABEL]: '' }), infra(), files);
    expect(s).toEqual({
      nodeName: 'm1',
      providerID: 'in-memory://c/m1',
      controlPlane: true,
      kubeletVersion: 'v1.31.0',
      spec: { image: 'img', resources: { cpu: 4 } },
      files,
      ready: true,
    });
    expect(initialHostState(machine(), infra(), {}).controlPlane).toBe(false);
  });
});

describe('desiredMachineStatus', () => {
  it('reports waiting for bootstrap data as not provisioned', () => {
    const s = desiredMachineStatus(
      infra(),
      machine(),
      { phase: 'WaitingForBootstrapData' },
      clock('2026-01-01T00:00:00Z'),
    );
    expect(s.initialization).toEqual({ provisioned: false });
    expect(s.conditions).toEqual([
      expect.objectContaining({
        type: 'VMProvisioned',
        status: 'False',
        reason: 'WaitingForBootstrapData',
        observedGeneration: 3,
      }),
      expect.objectContaining({ type: 'Ready', status: 'False', reason: 'NotReady' }),
    ]);
    expect(s.addresses).toBeUndefined();
  });

  it('reports bootstrap data that cannot be run as BootstrapFailed with its message, not provisioned', () => {
    const message = 'bootstrap data Secret d/m-0 not found';
    const t = clock('2026-01-01T00:00:00Z');
    const s = desiredMachineStatus(infra(), machine(), { phase: 'BootstrapFailed', message }, t);
    expect(s.initialization).toEqual({ provisioned: false });
    expect(s.conditions).toEqual([
      expect.objectContaining({ type: 'VMProvisioned', status: 'False', reason: 'BootstrapFailed', message }),
      expect.objectContaining({ type: 'Ready', status: 'False', reason: 'NotReady', message }),
    ]);
    // A VM that was provisioned before (its Node lost, e.g. after a restart) stays provisioned.
    const running = desiredMachineStatus(infra(), machine(), { phase: 'Running' }, t);
    const again = desiredMachineStatus(infra(running), machine(), { phase: 'BootstrapFailed', message }, t);
    expect(again.initialization).toEqual({ provisioned: true });
  });

  it('reports a running VM as provisioned with addresses and Ready', () => {
    const s = desiredMachineStatus(infra(), machine(), { phase: 'Running' }, clock('2026-01-01T00:00:00Z'));
    expect(s.initialization).toEqual({ provisioned: true });
    expect(s.addresses).toEqual([
      { type: 'InternalIP', address: expect.stringMatching(/^10\.\d+\.\d+\.\d+$/) },
      { type: 'Hostname', address: 'm1' },
    ]);
    expect(s.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['VMProvisioned', 'True', 'Provisioned'],
      ['Ready', 'True', 'Ready'],
    ]);
  });

  it('control-plane hosts report EtcdProvisioned as upstream: waiting for the VM, the CA (with why), provisioned', () => {
    const t = clock('2026-01-01T00:00:00Z');
    const etcdOf = (s: ReturnType<typeof desiredMachineStatus>) =>
      s.conditions?.find((c) => c.type === 'EtcdProvisioned');
    const missing = { ok: false, reason: 'InternalError', message: 'failed to get etcd CA: Secret d/c-etcd not found' };
    expect(
      etcdOf(desiredMachineStatus(infra(), machine(), { phase: 'Booting', remainingMs: 5 }, t, missing)),
    ).toMatchObject({ status: 'False', reason: 'WaitingForVMProvisioned' });
    expect(etcdOf(desiredMachineStatus(infra(), machine(), { phase: 'Running' }, t, missing))).toMatchObject({
      status: 'False',
      reason: 'InternalError',
      message: missing.message,
    });
    const ok = desiredMachineStatus(infra(), machine(), { phase: 'Running' }, t, { ok: true });
    expect(etcdOf(ok)).toMatchObject({ status: 'True', reason: 'Provisioned', observedGeneration: 3 });
    // The member's CA does not gate the VM's readiness; workers have no such condition.
    expect(ok.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(etcdOf(desiredMachineStatus(infra(), machine(), { phase: 'Running' }, t))).toBeUndefined();
  });

  it('is stable: recomputing an unchanged status keeps lastTransitionTime (no write needed)', () => {
    const first = desiredMachineStatus(infra(), machine(), { phase: 'Running' }, clock('2026-01-01T00:00:00Z'));
    const again = desiredMachineStatus(infra(first), machine(), { phase: 'Running' }, clock('2026-01-01T01:00:00Z'));
    expect(again).toEqual(first);
  });

  it('never flips provisioned back to false', () => {
    const s = desiredMachineStatus(
      infra({ initialization: { provisioned: true } }),
      machine(),
      { phase: 'Booting', remainingMs: 5 },
      clock('2026-01-01T00:00:00Z'),
    );
    expect(s.initialization).toEqual({ provisioned: true });
  });
});
