import { PENDING_HOOKS_ANNOTATION, UPDATE_IN_PROGRESS_ANNOTATION } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { HookRetryCache } from '@capi/inplace';
import { decideInPlaceStep } from './inplace-decision';
import { buildUpdateMachineRequest, inPlaceStateOf, type InPlaceContext } from './inplace-phase';
import type { MachineObject } from './types';

const MARKER = { [UPDATE_IN_PROGRESS_ANNOTATION]: '' };
const machine = (): MachineObject =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name: 'm',
      namespace: 'ns',
      uid: 'u',
      annotations: { ...MARKER, [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' },
    },
    spec: {
      clusterName: 'c',
      version: 'v1.31.0',
      bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'm-boot' } },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name: 'm-infra' },
    },
    status: {
      initialization: { infrastructureProvisioned: true, bootstrapDataSecretCreated: true },
      nodeRef: { name: 'node-m' },
    },
  }) as MachineObject;
const obj = (kind: string, name: string, marked = true): KubeObject => ({
  apiVersion: 'x.cluster.x-k8s.io/v1beta2',
  kind,
  metadata: { name, namespace: 'ns', ...(marked ? { annotations: { ...MARKER } } : {}) },
  spec: { a: 1 },
});
const ctx = (over: Partial<InPlaceContext> = {}): InPlaceContext => ({
  machine: machine(),
  infraMachine: obj('TestMachine', 'm-infra'),
  bootstrapConfig: obj('KubeadmConfig', 'm-boot'),
  gateEnabled: true,
  log: { log: () => undefined, debug: () => undefined, error: () => undefined } as unknown as InPlaceContext['log'],
  ...over,
});
const step = (c: InPlaceContext) => decideInPlaceStep(inPlaceStateOf(c, new HookRetryCache()));

// Upstream machine_controller_inplace_update.go isBootstrapConfigReadyForUpdate: no BootstrapConfig object (none
// referenced, or referenced and not found: s.bootstrapConfig stays nil) → nothing to wait for.
describe('inPlaceStateOf: the BootstrapConfig marker', () => {
  it('an existing, unmarked BootstrapConfig is waited for', () => {
    expect(step(ctx({ bootstrapConfig: obj('KubeadmConfig', 'm-boot', false) }))).toEqual({
      type: 'WaitForMarkers',
      missing: ['BootstrapConfig'],
    });
  });

  it('a referenced BootstrapConfig that is gone is not waited for: UpdateMachine is called without it', () => {
    const c = ctx({ bootstrapConfig: undefined });
    expect(step(c)).toEqual({ type: 'CallUpdateMachine' });
    expect(Object.keys(buildUpdateMachineRequest(c).desired).sort()).toEqual(['infrastructureMachine', 'machine']);
  });

  it('a BootstrapConfig that could not be read (not a NotFound) is waited for: no call on an unknown desired state', () => {
    expect(step(ctx({ bootstrapConfig: undefined, bootstrapConfigUnreadable: true }))).toEqual({
      type: 'WaitForMarkers',
      missing: ['BootstrapConfig'],
    });
  });

  it('without a bootstrap configRef (data secret given) nothing is waited for', () => {
    const m = machine();
    delete m.spec.bootstrap!.configRef;
    expect(step(ctx({ machine: m, bootstrapConfig: undefined }))).toEqual({ type: 'CallUpdateMachine' });
  });
});

// Upstream TestCleanupMachine / TestCleanupUnstructured, through the request the phase sends (the reduction itself is
// @capi/api reduceObjectForHook, tested there).
describe('buildUpdateMachineRequest (upstream cleanupMachine / cleanupUnstructured)', () => {
  it('desired Machine: Machine GVK, name, namespace, labels, annotations and spec; no status', () => {
    const m = machine();
    m.metadata.labels = { key: 'value' };
    m.status = { ...m.status, phase: 'Running' };
    const { desired } = buildUpdateMachineRequest(ctx({ machine: m }));
    expect(desired.machine).toEqual({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: { name: 'm', namespace: 'ns', labels: { key: 'value' }, annotations: m.metadata.annotations },
      spec: m.spec,
    });
  });

  it('desired InfraMachine / BootstrapConfig: their own GVK and spec; no status', () => {
    const infra = { ...obj('TestMachine', 'm-infra'), status: { state: 'ready' } };
    const { desired } = buildUpdateMachineRequest(ctx({ infraMachine: infra }));
    expect(desired.infrastructureMachine).toEqual({
      apiVersion: 'x.cluster.x-k8s.io/v1beta2',
      kind: 'TestMachine',
      metadata: { name: 'm-infra', namespace: 'ns', annotations: { ...MARKER } },
      spec: { a: 1 },
    });
    expect(desired.bootstrapConfig).toMatchObject({ kind: 'KubeadmConfig', spec: { a: 1 } });
    expect(desired.bootstrapConfig).not.toHaveProperty('status');
  });
});
