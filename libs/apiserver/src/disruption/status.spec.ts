// Cases of kubernetes pkg/controller/disruption/disruption_test.go (VerifyPdbStatus: disruptionsAllowed,
// currentHealthy, desiredHealthy, expectedPods, disruptedPods) on the pure status computation.
import type { KubeObject } from '@capi/apimachinery';
import { computePdbStatus, expectedScale, failSafeStatus, scaledValue, type ScaleOf } from './status';

const NOW = new Date('2026-01-01T00:00:00Z');
const rc = { apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: 'rc-uid', controller: true };

function pod(name: string, o: { ready?: boolean; owner?: object; deleting?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      ...(o.owner ? { ownerReferences: [o.owner] } : {}),
      ...(o.deleting ? { deletionTimestamp: NOW.toISOString() } : {}),
    },
    status: { conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  } as KubeObject;
}
const pdb = (spec: object, status: object = {}, generation = 1): KubeObject =>
  ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'pdb', namespace: 'default', generation },
    spec,
    status,
  }) as KubeObject;
const unknownKinds: ScaleOf = () => undefined;
const counts = (s: Record<string, any>) => [s.disruptionsAllowed, s.currentHealthy, s.desiredHealthy, s.expectedPods];

describe('computePdbStatus (disruption.go)', () => {
  it('TestIntegerMinAvailable-like: minAvailable 3 counts the matching Pods, then one turns unready', () => {
    const pods: KubeObject[] = [];
    for (let i = 0; i < 4; i++) {
      expect(counts(computePdbStatus(pdb({ minAvailable: 3 }), pods, NOW, unknownKinds).status)).toEqual([0, i, 3, i]);
      pods.push(pod(`p${i}`));
    }
    expect(counts(computePdbStatus(pdb({ minAvailable: 3 }), pods, NOW, unknownKinds).status)).toEqual([1, 4, 3, 4]);
    pods[0] = pod('p0', { ready: false });
    expect(counts(computePdbStatus(pdb({ minAvailable: 3 }), pods, NOW, unknownKinds).status)).toEqual([0, 3, 3, 4]);
  });

  it('TestIntegerMaxUnavailable / TestNakedPod: Pods without a controller are not expected, so no disruption', () => {
    expect(counts(computePdbStatus(pdb({ maxUnavailable: 1 }), [], NOW, unknownKinds).status)).toEqual([0, 0, 0, 0]);
    expect(
      computePdbStatus(pdb({ maxUnavailable: 1 }), [pod('naked')], NOW, unknownKinds).status.disruptionsAllowed,
    ).toBe(0);
    expect(
      computePdbStatus(pdb({ minAvailable: '28%' }), [pod('naked')], NOW, unknownKinds).status.disruptionsAllowed,
    ).toBe(0);
  });

  it('TestIntegerMaxUnavailableWithScaling / TestPercentageMaxUnavailableWithScaling: the controller scale', () => {
    const rs = { ...rc, kind: 'ReplicaSet', apiVersion: 'apps/v1' };
    let replicas = 7;
    const scale: ScaleOf = () => replicas;
    const one = [pod('pod', { owner: rs })];
    expect(counts(computePdbStatus(pdb({ maxUnavailable: 2 }), one, NOW, scale).status)).toEqual([0, 1, 5, 7]);
    expect(counts(computePdbStatus(pdb({ maxUnavailable: '30%' }), one, NOW, scale).status)).toEqual([0, 1, 4, 7]);
    replicas = 5;
    expect(counts(computePdbStatus(pdb({ maxUnavailable: 2 }), one, NOW, scale).status)).toEqual([0, 1, 3, 5]);
    replicas = 3;
    expect(counts(computePdbStatus(pdb({ maxUnavailable: '30%' }), one, NOW, scale).status)).toEqual([0, 1, 2, 3]);
  });

  it('TestReplicaSet: 20% of a scale of 10', () => {
    const status = computePdbStatus(pdb({ minAvailable: '20%' }), [pod('pod', { owner: rc })], NOW, () => 10).status;
    expect(counts(status)).toEqual([0, 1, 2, 10]);
  });

  it('TestReplicationController: 34% of 3 rounds up to 2', () => {
    const pods = [0, 1, 2].map((i) => pod(`foobar ${i}`, { owner: rc }));
    for (let i = 1; i <= 3; i++)
      expect(counts(computePdbStatus(pdb({ minAvailable: '34%' }), pods.slice(0, i), NOW, () => 3).status)).toEqual([
        i < 3 ? 0 : 1,
        i,
        2,
        3,
      ]);
  });

  it('a controller of a kind this server does not serve counts as many as its Pods', () => {
    const pods = [pod('a', { owner: rc }), pod('b', { owner: rc })];
    expect(expectedScale(pods, unknownKinds)).toBe(2);
    expect(counts(computePdbStatus(pdb({ maxUnavailable: 1 }), pods, NOW, unknownKinds).status)).toEqual([1, 2, 1, 2]);
  });

  it('a missing controller or one without a scale: an error (failSafe)', () => {
    expect(() => computePdbStatus(pdb({ maxUnavailable: 1 }), [pod('x', { owner: rc })], NOW, () => null)).toThrow(
      'found no controllers for pod "x"',
    );
    const failed = failSafeStatus(
      pdb({}, { disruptionsAllowed: 3 }),
      'daemonsets.apps does not implement the scale subresource',
      NOW,
    );
    expect(failed.disruptionsAllowed).toBe(0);
    expect(failed.conditions).toEqual([
      {
        type: 'DisruptionAllowed',
        status: 'False',
        lastTransitionTime: '2026-01-01T00:00:00Z',
        reason: 'SyncFailed',
        message: 'daemonsets.apps does not implement the scale subresource',
      },
    ]);
  });

  it('a terminating Pod is not healthy; a recorded eviction keeps its Pod out until DeletionTimeout', () => {
    const pods = [pod('a'), pod('b'), pod('c', { deleting: true })];
    const recorded = { a: '2025-12-31T23:59:00Z', gone: '2025-12-31T23:59:30Z', c: '2025-12-31T23:59:30Z' };
    const r = computePdbStatus(pdb({ minAvailable: 1 }, { disruptedPods: recorded }), pods, NOW, unknownKinds);
    expect(counts(r.status)).toEqual([0, 1, 1, 3]);
    // Entries for Pods gone or being deleted are dropped; a's expires 2 minutes after the eviction.
    expect(r.status.disruptedPods).toEqual({ a: '2025-12-31T23:59:00Z' });
    expect(r.recheckAt).toBe(Date.parse('2026-01-01T00:01:00Z'));
    const later = new Date('2026-01-01T00:01:01Z');
    const expired = computePdbStatus(pdb({ minAvailable: 1 }, { disruptedPods: recorded }), pods, later, unknownKinds);
    expect(expired.status.disruptedPods).toBeUndefined();
    expect(counts(expired.status)).toEqual([1, 2, 1, 3]);
  });

  it('observedGeneration and the DisruptionAllowed condition (UpdateDisruptionAllowedCondition)', () => {
    const first = computePdbStatus(pdb({ minAvailable: 1 }, {}, 4), [pod('a'), pod('b')], NOW, unknownKinds).status;
    expect(first).toEqual({
      observedGeneration: 4,
      disruptionsAllowed: 1,
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 2,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: 'True',
          observedGeneration: 4,
          lastTransitionTime: '2026-01-01T00:00:00Z',
          reason: 'SufficientPods',
          message: '',
        },
      ],
    });
    // Same status later: the transition time stays; a change to False moves it.
    const later = new Date('2026-01-01T01:00:00Z');
    const same = computePdbStatus(pdb({ minAvailable: 1 }, first, 4), [pod('a'), pod('b')], later, unknownKinds).status;
    expect(same.conditions[0].lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    const insufficient = computePdbStatus(
      pdb({ minAvailable: 2 }, first, 5),
      [pod('a'), pod('b')],
      later,
      unknownKinds,
    );
    expect(insufficient.status.conditions).toEqual([
      expect.objectContaining({
        status: 'False',
        reason: 'InsufficientPods',
        lastTransitionTime: '2026-01-01T01:00:00Z',
      }),
    ]);
  });

  it('scaledValue: GetScaledValueFromIntOrPercent rounding up', () => {
    expect(scaledValue(3, 10)).toBe(3);
    expect(scaledValue('34%', 3)).toBe(2);
    expect(scaledValue('0%', 3)).toBe(0);
    expect(() => scaledValue('x', 3)).toThrow('invalid value for IntOrString');
  });
});
