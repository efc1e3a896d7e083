import { podCells } from './printers-pod';

const now = new Date('2026-01-01T01:00:00Z');
const created = '2026-01-01T00:00:00Z';
const cells = (spec: Record<string, unknown>, status: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
  podCells({ metadata: { name: 'p', creationTimestamp: created, ...meta }, spec, status }, now);
const two = { containers: [{ name: 'a' }, { name: 'b' }] };
const running = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  ready: true,
  restartCount: 0,
  state: { running: {} },
  ...extra,
});

describe("podCells (kube's printPod)", () => {
  it('a running Pod: ready count, phase, restarts, age; wide cells', () => {
    expect(
      cells(
        { ...two, nodeName: 'n1' },
        { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }], containerStatuses: [running('a'), running('b')] },
      ),
    ).toEqual(['p', '2/2', 'Running', '0', '60m', '10.0.0.1', 'n1', '<none>', '<none>']);
  });

  it('restarts show when the last one was', () => {
    const restarted = running('a', {
      restartCount: 3,
      lastState: { terminated: { finishedAt: '2026-01-01T00:55:00Z', exitCode: 1 } },
    });
    expect(cells(two, { phase: 'Running', containerStatuses: [restarted] }).slice(1, 4)).toEqual([
      '1/2',
      'Running',
      '3 (5m ago)',
    ]);
  });

  it('a waiting or terminated container reason wins over the phase', () => {
    const waiting = { name: 'a', ready: false, restartCount: 5, state: { waiting: { reason: 'CrashLoopBackOff' } } };
    expect(cells(two, { phase: 'Running', containerStatuses: [waiting] })[2]).toBe('CrashLoopBackOff');
    const exited = { name: 'a', state: { terminated: { exitCode: 2 } } };
    expect(cells(two, { phase: 'Running', containerStatuses: [exited] })[2]).toBe('ExitCode:2');
    const signal = { name: 'a', state: { terminated: { exitCode: 137, signal: 9 } } };
    expect(cells(two, { phase: 'Running', containerStatuses: [signal] })[2]).toBe('Signal:9');
  });

  it('Completed with a container still running reads Running (Ready) or NotReady', () => {
    const done = { name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } } };
    const ready = [{ type: 'Ready', status: 'True' }];
    expect(cells(two, { phase: 'Running', conditions: ready, containerStatuses: [running('b'), done] })[2]).toBe(
      'Running',
    );
    expect(cells(two, { phase: 'Running', containerStatuses: [running('b'), done] })[2]).toBe('NotReady');
  });

  it('init containers: progress, failures, sidecars', () => {
    const spec = { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] };
    const ok = { name: 'i1', state: { terminated: { exitCode: 0 } } };
    expect(
      cells(spec, { phase: 'Pending', initContainerStatuses: [ok, { name: 'i2', state: { running: {} } }] })[2],
    ).toBe('Init:1/2');
    const failed = { name: 'i1', state: { terminated: { exitCode: 1, reason: 'Error' } } };
    expect(cells(spec, { phase: 'Pending', initContainerStatuses: [failed] })[2]).toBe('Init:Error');
    const backoff = { name: 'i1', state: { waiting: { reason: 'ImagePullBackOff' } } };
    expect(cells(spec, { phase: 'Pending', initContainerStatuses: [backoff] })[2]).toBe('Init:ImagePullBackOff');
    const sidecarSpec = { initContainers: [{ name: 's', restartPolicy: 'Always' }], containers: [{ name: 'a' }] };
    const sidecar = { name: 's', started: true, ready: true, state: { running: {} } };
    expect(
      cells(sidecarSpec, {
        phase: 'Running',
        initContainerStatuses: [sidecar],
        containerStatuses: [running('a')],
      }).slice(1, 3),
    ).toEqual(['2/2', 'Running']);
  });

  it('deletion: Terminating unless the phase is terminal; reason and gates', () => {
    const deleting = { deletionTimestamp: '2026-01-01T00:59:00Z' };
    expect(cells(two, { phase: 'Running' }, deleting)[2]).toBe('Terminating');
    expect(cells(two, { phase: 'Succeeded' }, deleting)[2]).toBe('Succeeded');
    expect(cells(two, { phase: 'Failed', reason: 'Evicted' })[2]).toBe('Evicted');
    const gated = { ...two, readinessGates: [{ conditionType: 'X' }, { conditionType: 'Y' }] };
    expect(cells(gated, { phase: 'Running', conditions: [{ type: 'X', status: 'True' }] })[8]).toBe('1/2');
    const sched = [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }];
    expect(cells(two, { phase: 'Pending', conditions: sched })[2]).toBe('SchedulingGated');
  });
});
