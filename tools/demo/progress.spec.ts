import type { Machine } from '@capi/api';
import {
  ProgressTracker,
  controlPlaneHealth,
  machineProblems,
  machineView,
  outcomeProblems,
  progressHeader,
  progressLine,
  renderSummary,
  stepOutcome,
} from './progress';

const healthy = [
  'Ready',
  'Available',
  'UpToDate',
  'BootstrapConfigReady',
  'InfrastructureReady',
  'NodeReady',
  'NodeHealthy',
].map((type) => ({ type, status: 'True', reason: type }));
const negatives = ['Updating', 'Deleting', 'Paused'].map((type) => ({ type, status: 'False', reason: 'No' + type }));

function machine(
  name: string,
  uid: string,
  opts: {
    version?: string;
    phase?: string;
    conditions?: Array<{ type: string; status: string; reason?: string }>;
    cp?: boolean;
    annotations?: Record<string, string>;
    deleting?: boolean;
  } = {},
): Machine {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name,
      uid,
      namespace: 'default',
      labels: opts.cp ? { 'cluster.x-k8s.io/control-plane': '' } : { 'cluster.x-k8s.io/deployment-name': 'md-0' },
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      clusterName: 'demo',
      version: opts.version ?? 'v1.31.0',
      bootstrap: {},
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'InMemoryMachine', name },
    },
    status: {
      phase: opts.phase ?? 'Running',
      conditions: (opts.conditions ?? [...healthy, ...negatives]).map((c) => ({
        lastTransitionTime: '2026-01-01T00:00:00Z',
        reason: 'R',
        ...c,
      })),
    },
  } as Machine;
}

describe('machineView / progressLine', () => {
  it('shows time, event, name, phase, version, UpToDate/Updating/Ready and a short uid, under a header', () => {
    const v = machineView(machine('demo-cp-abc', '0123456789abcdef', { cp: true }));
    expect(v).toMatchObject({ group: 'cp', phase: 'Running', upToDate: 'True', updating: 'False', ready: 'True' });
    expect(progressHeader()).toMatch(/^ {3}TIME EVENT +MACHINE +PHASE +VERSION +UPTODATE UPDATING READY UID +NOTE$/);
    const line = progressLine('ADDED', v, '+12.3s');
    expect(line).toMatch(/^ \+12\.3s ADDED +demo-cp-abc +Running +v1\.31\.0 +True +False +True +01234567$/);
    // Each value starts under its column's header.
    const header = progressHeader();
    for (const [col, value] of [
      ['MACHINE', 'demo-cp-abc'],
      ['PHASE', 'Running'],
      ['UPTODATE', 'True'],
      ['UPDATING', 'False'],
      ['UID', '01234567'],
    ])
      expect(line.indexOf(value, header.indexOf(col))).toBe(header.indexOf(col));
    expect(
      progressLine(
        'CHANGED',
        machineView(
          machine('m', 'u', { annotations: { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' } }),
        ),
      ),
    ).toMatch(/ update-in-progress$/);
  });

  it('a Machine without status is Pending with unknown conditions', () => {
    const m = machine('m', 'u');
    delete (m as { status?: unknown }).status;
    expect(machineView(m)).toMatchObject({ phase: 'Pending', upToDate: '-', updating: '-', ready: '-' });
  });

  it('a wide state still fits 120 columns: every line, the header included', () => {
    const wide = machine('a-very-long-cluster-name-md-0-6b9c7b4479d-flkzbxyz', 'ffffffffffffffff', {
      version: 'v1.131.10-rc.1',
      phase: 'Provisioning',
      deleting: true,
      annotations: { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' },
      conditions: [
        { type: 'UpToDate', status: 'Unknown' },
        { type: 'Updating', status: 'Unknown' },
        { type: 'Ready', status: 'Unknown' },
        {
          type: 'Deleting',
          status: 'True',
          reason: 'DrainingNode',
          message: `* Pods ${Array.from({ length: 20 }, (_, i) => `default/sample-${i}`).join(', ')}: cannot evict`,
        } as never,
      ],
    });
    const t = new ProgressTracker(() => '+12345.6s');
    const lines = [
      ...t.onEvent('ADDED', wide)!.split('\n'),
      ...t.onEvent('MODIFIED', { ...wide, spec: { ...wide.spec, version: 'v1.131.11-rc.1' } })!.split('\n'),
      ...t.onEvent('DELETED', wide)!.split('\n'),
    ];
    expect(lines[0]).toBe(progressHeader());
    expect(lines.length).toBe(5); // header, ADDED + its drain line, CHANGED, DELETED
    expect(lines[2]).toMatch(/^ +drain a-very-long/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(120);
    expect(lines[1]).toMatch(/^\+12345\.6s ADDED +a-very-long-cluster-name-md-0-6b9c7b4479d-flkzbxyz Provisioning/);
    expect(lines[1]).toMatch(/…$/);
    // A typical line is not cut: a worker of the demo, draining, with an update in progress.
    const typical = progressLine(
      'CHANGED',
      machineView(
        machine('demo2-md-0-6b9c7b4479-flkzb', 'f9641087aaaa', {
          phase: 'Deleting',
          deleting: true,
          conditions: [{ type: 'Deleting', status: 'True', reason: 'DrainingNode' } as never],
        }),
      ),
      '+181.2s',
    );
    expect(typical).toMatch(/ Deleting .* f9641087 DrainingNode$/);
    expect(typical.length).toBeLessThanOrEqual(120);
  });
});

describe('ProgressTracker', () => {
  it('prints ADDED first, CHANGED only when a displayed field changes, and DELETED', () => {
    const t = new ProgressTracker(() => '+1.0s');
    const m = machine('m', 'u1', { phase: 'Provisioning' });
    expect(t.onEvent('ADDED', m)!.split('\n')).toEqual([
      progressHeader(),
      expect.stringMatching(/^ {2}\+1\.0s ADDED /),
    ]);
    expect(t.onEvent('MODIFIED', m)).toBeUndefined(); // e.g. a resourceVersion-only change
    expect(t.onEvent('MODIFIED', machine('m', 'u1', { phase: 'Running' }))).toMatch(/^ {2}\+1\.0s CHANGED .*Running/);
    expect(t.onEvent('DELETED', m)).toMatch(/^ {2}\+1\.0s DELETED /);
    // A Machine seen first through MODIFIED (watch started late) is still announced as ADDED.
    expect(t.onEvent('MODIFIED', machine('n', 'u2'))).toMatch(/^ {2}\+1\.0s ADDED /);
  });

  it('repeats the header before the first line of a new section only', () => {
    const t = new ProgressTracker();
    expect(t.onEvent('ADDED', machine('m', 'u1'))!.split('\n')[0]).toBe(progressHeader());
    expect(t.onEvent('MODIFIED', machine('m', 'u1', { phase: 'Deleting' }))!.split('\n')).toHaveLength(1);
    t.section();
    expect(t.onEvent('MODIFIED', machine('m', 'u1', { phase: 'Deleting' }))).toBeUndefined();
    expect(t.onEvent('DELETED', machine('m', 'u1'))!.split('\n')[0]).toBe(progressHeader());
  });
});

describe('stepOutcome', () => {
  it('classifies kept (same UID), replaced (gone) and new Machines, with the version change of kept ones', () => {
    const before = [machine('a', 'ua'), machine('b', 'ub')];
    const after = [machine('a', 'ua', { version: 'v1.31.1' }), machine('c', 'uc', { version: 'v1.31.1' })];
    expect(stepOutcome('s', before, after)).toEqual([
      { step: 's', name: 'a', group: 'md-0', uid: 'ua', outcome: 'kept in place', version: 'v1.31.0 -> v1.31.1' },
      { step: 's', name: 'b', group: 'md-0', uid: 'ub', outcome: 'replaced', version: 'v1.31.0' },
      { step: 's', name: 'c', group: 'md-0', uid: 'uc', outcome: 'new', version: 'v1.31.1' },
    ]);
  });

  it('a Machine recreated with the same name but a new UID counts as replaced + new', () => {
    const rows = stepOutcome('s', [machine('a', 'old')], [machine('a', 'new')]);
    expect(rows.map((r) => r.outcome)).toEqual(['replaced', 'new']);
  });
});

describe('outcomeProblems', () => {
  const rows = stepOutcome(
    'in-place',
    [machine('a', 'ua'), machine('b', 'ub')],
    [machine('a', 'ua'), machine('c', 'uc')],
  );
  it('in-place: every replaced or new Machine is a problem', () => {
    expect(outcomeProblems(rows, 'kept in place')).toEqual([
      'in-place: b was replaced, expected kept in place',
      'in-place: c is new, expected every Machine to be updated in place',
    ]);
  });
  it('rollout: every kept Machine is a problem, new ones are expected', () => {
    expect(outcomeProblems(rows, 'replaced')).toEqual(['in-place: a was kept in place, expected replaced']);
  });
});

describe('machineProblems', () => {
  it('is empty for a Running Machine with positive conditions True and negative ones False', () => {
    expect(machineProblems(machine('m', 'u'), 'v1.31.0')).toEqual([]);
  });

  it('names each unhealthy condition, a wrong version, phase, in-flight update and deletion', () => {
    const m = machine('m', 'u', {
      phase: 'Provisioned',
      version: 'v1.31.0',
      deleting: true,
      annotations: { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' },
      conditions: [
        ...healthy.filter((c) => c.type !== 'NodeReady'),
        { type: 'NodeReady', status: 'Unknown', reason: 'NodeInspectionFailed' },
        { type: 'Updating', status: 'True', reason: 'InPlaceUpdating' },
      ],
    });
    expect(machineProblems(m, 'v1.31.1')).toEqual([
      'm: being deleted',
      'm: update in progress',
      'm: phase Provisioned',
      'm: version v1.31.0 (want v1.31.1)',
      'm: NodeReady=Unknown (NodeInspectionFailed)',
      'm: Updating=True (InPlaceUpdating)',
    ]);
  });

  it('requires Ready and UpToDate to be present', () => {
    expect(machineProblems(machine('m', 'u', { conditions: [] }))).toEqual([
      'm: no Ready condition',
      'm: no UpToDate condition',
    ]);
  });
});

describe('renderSummary', () => {
  it('renders an aligned table with short UIDs', () => {
    const rows = stepOutcome(
      'in-place',
      [machine('demo-cp-1', 'aaaaaaaa-1111')],
      [machine('demo-cp-1', 'aaaaaaaa-1111', { version: 'v1.31.1' })],
    );
    expect(renderSummary(rows).split('\n')).toEqual([
      'STEP      MACHINE    GROUP  UID       OUTCOME        VERSION',
      'in-place  demo-cp-1  md-0   aaaaaaaa  kept in place  v1.31.0 -> v1.31.1',
    ]);
  });
});

describe('controlPlaneHealth', () => {
  const kcp = (conditions: Array<{ type: string; status: string; message?: string }>) => ({
    metadata: { name: 'cp' },
    status: { conditions },
  });
  it('prints both KCP health conditions and reports those not True', () => {
    expect(
      controlPlaneHealth(
        kcp([
          { type: 'ControlPlaneComponentsHealthy', status: 'True' },
          { type: 'EtcdClusterHealthy', status: 'True' },
        ]),
      ),
    ).toEqual({
      line: 'ControlPlaneComponentsHealthy=True, EtcdClusterHealthy=True',
      problems: [],
    });
    const sick = controlPlaneHealth(
      kcp([
        {
          type: 'ControlPlaneComponentsHealthy',
          status: 'False',
          message: '* Machine a:\n  * SchedulerPodHealthy: Waiting to be ready',
        },
      ]),
    );
    expect(sick.line).toBe('ControlPlaneComponentsHealthy=False, EtcdClusterHealthy=-');
    expect(sick.problems).toEqual([
      'KubeadmControlPlane cp: ControlPlaneComponentsHealthy=False (* Machine a: * SchedulerPodHealthy: Waiting to be ready)',
      'KubeadmControlPlane cp: EtcdClusterHealthy=unset',
    ]);
  });
});

describe('ProgressTracker: drains', () => {
  const draining = (message: string) =>
    machine('m', 'u1', {
      deleting: true,
      conditions: [...healthy, { type: 'Deleting', status: 'True', reason: 'DrainingNode', message } as never],
    });
  const blocked = [
    'Drain not completed yet (started at 2026-01-01T00:00:00Z):',
    "* Pod default/sample-7d9f-abcde: cannot evict pod as it would violate the pod's disruption budget. The disruption budget sample needs 2 healthy pods and has 2 currently",
    '* Pod kube-system/coredns-5f6b-xyz12: deletionTimestamp set, but still not removed from the Node',
  ].join('\n');

  it('shows the Deleting reason and what holds the drain up, again only when it changes', () => {
    const t = new ProgressTracker();
    const lines = t.onEvent('MODIFIED', draining(blocked))!.split('\n').slice(1); // after the header
    expect(lines[0]).toMatch(/^ +ADDED .* DrainingNode$/);
    expect(lines.slice(1)).toEqual([
      "         drain m: * Pod default/sample-7d9f-abcde: cannot evict pod as it would violate the pod's disruption budget. Th…",
      '         drain m: * Pod kube-system/coredns-5f6b-xyz12: deletionTimestamp set, but still not removed from the Node',
    ]);
    expect(lines.slice(1).every((l) => l.length <= 120)).toBe(true);
    expect(t.onEvent('MODIFIED', draining(blocked))).toBeUndefined();
    const next = blocked.split('\n').slice(0, 2).join('\n');
    expect(t.onEvent('MODIFIED', draining(next))!.split('\n')).toEqual([
      "         drain m: * Pod default/sample-7d9f-abcde: cannot evict pod as it would violate the pod's disruption budget. Th…",
    ]);
  });
});
