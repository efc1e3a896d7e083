import { APPLIED_SPEC_ANNOTATION, NODE_ROLE_CONTROL_PLANE_LABEL } from '../api/constants';
import {
  appliedHostSpec,
  appliedSpecOf,
  internalIpFor,
  isNodeReady,
  kubeletVersionOf,
  nodeObject,
  nodeStatus,
  type HostState,
} from './node';
import { HostUpdateError, hostStateAfterUpdate } from './backend';
import { fileDigest, hostFilesOf } from './files';
import { INMEMORY_API_VERSION } from '../api/types';

const state: HostState = {
  nodeName: 'n1',
  providerID: 'in-memory://c/n1',
  controlPlane: true,
  kubeletVersion: 'v1.31.0',
  files: {},
  spec: { resources: { cpu: 4, memoryMiB: 2048 } },
  ready: true,
};

describe('nodeObject', () => {
  it('carries providerID, hostname and control-plane labels and the applied spec', () => {
    const n = nodeObject(state);
    // kubeadm registers control-plane Nodes with its control-plane taint (upstream in-memory backend does the same).
    expect(n.spec).toEqual({
      providerID: 'in-memory://c/n1',
      taints: [{ key: NODE_ROLE_CONTROL_PLANE_LABEL, effect: 'NoSchedule' }],
    });
    expect(nodeObject({ ...state, controlPlane: false }).spec).toEqual({ providerID: 'in-memory://c/n1' });
    expect(n.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': 'n1', [NODE_ROLE_CONTROL_PLANE_LABEL]: '' });
    expect(appliedSpecOf(n)).toEqual({ resources: { cpu: 4, memoryMiB: 2048 } });
    expect(
      nodeObject({ ...state, controlPlane: false }).metadata.labels?.[NODE_ROLE_CONTROL_PLANE_LABEL],
    ).toBeUndefined();
  });
});

describe('nodeStatus', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const t1 = new Date('2026-01-01T00:05:00Z');

  it('reports version, capacity from resources, stable addresses and Ready', () => {
    const s = nodeStatus(state, t0);
    expect(kubeletVersionOf(s)).toBe('v1.31.0');
    expect(isNodeReady(s)).toBe(true);
    expect((s.status as { capacity: unknown }).capacity).toMatchObject({ cpu: '4', memory: '2048Mi' });
    expect((s.status as { addresses: unknown }).addresses).toEqual([
      { type: 'InternalIP', address: internalIpFor(state.providerID) },
      { type: 'Hostname', address: 'n1' },
    ]);
    expect(internalIpFor(state.providerID)).toBe(internalIpFor('in-memory://c/n1'));
    expect(internalIpFor('in-memory://c/other')).not.toBe(internalIpFor(state.providerID));
  });

  it('defaults capacity without resources', () => {
    expect((nodeStatus({ ...state, spec: {} }, t0).status as { capacity: unknown }).capacity).toMatchObject({
      cpu: '2',
      memory: '4096Mi',
    });
  });

  it('keeps lastTransitionTime while Ready does not change and moves it when it does', () => {
    const ready = (s: ReturnType<typeof nodeStatus>) =>
      (
        s.status as { conditions: { type: string; lastTransitionTime: string; lastHeartbeatTime: string }[] }
      ).conditions.find((c) => c.type === 'Ready')!;
    const first = nodeStatus(state, t0);
    const same = nodeStatus(state, t1, first);
    expect(ready(same).lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(ready(same).lastHeartbeatTime).toBe('2026-01-01T00:05:00Z');
    const notReady = nodeStatus({ ...state, ready: false, notReadyMessage: 'updating' }, t1, first);
    expect(isNodeReady(notReady)).toBe(false);
    expect(ready(notReady)).toMatchObject({ lastTransitionTime: '2026-01-01T00:05:00Z', message: 'updating' });
  });
});

describe('appliedHostSpec / appliedSpecOf', () => {
  it('keeps only host fields and reads unreadable annotations as empty', () => {
    expect(
      appliedHostSpec({ providerID: 'x', image: 'i', backend: { inMemory: { vmBootstrapTimeout: '5m' } } }),
    ).toEqual({ image: 'i', backend: { inMemory: { vmBootstrapTimeout: '5m' } } });
    expect(
      appliedSpecOf({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { annotations: { [APPLIED_SPEC_ANNOTATION]: '{nope' } },
      }),
    ).toEqual({});
  });
});

describe('hostStateAfterUpdate', () => {
  const node = nodeObject(state);
  const machine = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { name: 'n1' },
    spec: { version: 'v1.32.0' },
  };

  it('takes the version from the desired Machine and the host spec from the desired InMemoryMachine', () => {
    const infra = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1',
      kind: 'InMemoryMachine',
      metadata: {},
      spec: { resources: { cpu: 8 }, providerID: 'p' },
    };
    expect(hostStateAfterUpdate(node, { machine, infrastructureMachine: infra }, 'in-memory://c/n1')).toEqual({
      nodeName: 'n1',
      providerID: 'in-memory://c/n1',
      controlPlane: true,
      kubeletVersion: 'v1.32.0',
      spec: { resources: { cpu: 8 } },
      files: {},
      ready: true,
    });
  });

  const kubeadmConfig = (files: unknown[]) => ({
    apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmConfig',
    metadata: {},
    spec: { joinConfiguration: {}, files },
  });
  const infra = { apiVersion: INMEMORY_API_VERSION, kind: 'InMemoryMachine', metadata: {}, spec: {} };
  const booted = nodeObject({ ...state, files: { '/etc/boot': fileDigest('b'), '/tmp/test': fileDigest('old') } });

  it("writes the desired KubeadmConfig's files over the host's, keeping the others", () => {
    const desired = {
      machine,
      infrastructureMachine: infra,
      bootstrapConfig: kubeadmConfig([
        { path: '/tmp/test', content: 'new' },
        { path: '/etc/b64', encoding: 'base64', content: Buffer.from('bin').toString('base64') },
        { path: '/etc/secret', contentFrom: { secret: { name: 's', key: 'k' } } },
      ]),
    };
    const after = hostStateAfterUpdate(booted, desired, 'p', { '/etc/secret': 'from secret' });
    expect(after.files).toEqual({
      '/etc/b64': fileDigest('bin'),
      '/etc/boot': fileDigest('b'),
      '/etc/secret': fileDigest('from secret'),
      '/tmp/test': fileDigest('new'),
    });
    // Rendered on the Node, where a user reads it back.
    expect(hostFilesOf(nodeObject(after))).toEqual(after.files);
  });

  it('keeps the files for another bootstrap kind or without a bootstrap config', () => {
    const other = { ...kubeadmConfig([{ path: '/tmp/test', content: 'new' }]), kind: 'TalosConfig' };
    const files = hostFilesOf(booted);
    expect(
      hostStateAfterUpdate(booted, { machine, infrastructureMachine: infra, bootstrapConfig: other }, 'p').files,
    ).toEqual(files);
    expect(hostStateAfterUpdate(booted, { machine, infrastructureMachine: infra }, 'p').files).toEqual(files);
  });

  it('fails with a HostUpdateError for a contentFrom file without its content or undecodable content', () => {
    const update = (files: unknown[]) => () =>
      hostStateAfterUpdate(
        booted,
        { machine, infrastructureMachine: infra, bootstrapConfig: kubeadmConfig(files) },
        'p',
      );
    expect(update([{ path: '/etc/secret', contentFrom: { secret: { name: 's', key: 'k' } } }])).toThrow(
      new HostUpdateError('file /etc/secret: key "k" of Secret "s" not found'),
    );
    expect(update([{ path: '/z', encoding: 'gzip', content: 'plain' }])).toThrow(HostUpdateError);
  });

  it('keeps the applied spec when the infra object is another kind', () => {
    const other = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'DevMachine',
      metadata: {},
      spec: { resources: { cpu: 99 } },
    };
    expect(hostStateAfterUpdate(node, { machine, infrastructureMachine: other }, 'p').spec).toEqual(state.spec);
  });
});
