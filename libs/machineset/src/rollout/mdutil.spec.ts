import {
  computeRevisionAnnotations,
  findNewAndOldMachineSets,
  machineTemplateUpToDate,
  maxSurge,
  maxUnavailable,
  newMSNewReplicas,
  resolveFenceposts,
  RolloutPlanError,
  scaledValueFromIntOrPercent,
} from './mdutil';
import { IntOrString, MachineDeploymentLike, MachineSetLike, RolloutAnnotations as A } from './types';

const md = (
  replicas: number,
  maxSurgeV?: IntOrString,
  maxUnavailableV?: IntOrString,
  after?: string,
): MachineDeploymentLike => ({
  metadata: { name: 'md' },
  spec: {
    replicas,
    template: { spec: { failureDomain: 'v2' } },
    rollout: {
      after,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: maxSurgeV, maxUnavailable: maxUnavailableV } },
    },
  },
});
const ms = (
  name: string,
  fd: string,
  replicas: number,
  extra: Partial<MachineSetLike['metadata']> = {},
): MachineSetLike => ({
  metadata: { name, ...extra },
  spec: { replicas, template: { spec: { failureDomain: fd } } },
  status: { replicas },
});

describe('int-or-percent resolution', () => {
  it.each([
    [3, 10, true, 3],
    ['25%', 10, true, 3],
    ['25%', 10, false, 2],
    ['0%', 10, true, 0],
    ['100%', 7, false, 7],
    ['33%', 3, true, 1],
    ['33%', 3, false, 0],
  ])('%p of %p (roundUp=%p) = %p', (v, total, up, want) => {
    expect(scaledValueFromIntOrPercent(v as IntOrString, total as number, up as boolean)).toBe(want);
  });

  it('rejects strings that are not percentages', () => {
    expect(() => scaledValueFromIntOrPercent('3', 10, true)).toThrow(RolloutPlanError);
    expect(() => scaledValueFromIntOrPercent('abc%', 10, true)).toThrow(/not a percentage/);
    expect(() => scaledValueFromIntOrPercent(1.5, 10, true)).toThrow(/not an integer/);
  });

  it('turns maxUnavailable into 1 when both fenceposts resolve to 0', () => {
    expect(resolveFenceposts('0%', '10%', 5)).toEqual({ surge: 0, unavailable: 1 });
    expect(resolveFenceposts(0, 0, 5)).toEqual({ surge: 0, unavailable: 1 });
    expect(resolveFenceposts('10%', '10%', 5)).toEqual({ surge: 1, unavailable: 0 });
  });

  it('caps maxUnavailable at spec.replicas and is 0 for an empty MD', () => {
    expect(maxUnavailable(md(6, 0, 10))).toBe(6);
    expect(maxUnavailable(md(0, 0, 10))).toBe(0);
    expect(maxSurge(md(6, 10, 0))).toBe(10);
  });

  it('uses the upstream defaults (maxSurge 1, maxUnavailable 0) when unset', () => {
    expect(maxSurge(md(4))).toBe(1);
    expect(maxUnavailable(md(4))).toBe(0);
  });

  it('is 0 for OnDelete', () => {
    const d = md(4, 2, 2);
    d.spec.rollout!.strategy = { type: 'OnDelete' };
    expect(maxSurge(d)).toBe(0);
    expect(maxUnavailable(d)).toBe(0);
  });
});

describe('newMSNewReplicas', () => {
  it('uses the surge budget counting max(spec, status) of every MS', () => {
    const old = ms('old', 'v1', 2);
    old.status = { replicas: 3 };
    expect(newMSNewReplicas(md(3, 2, 0), [old, ms('new', 'v2', 0)], 0)).toEqual({
      replicas: 2,
      note: '3 current Machines < 3 MachineDeployment spec.replicas + 2 maxSurge',
    });
  });

  it('never exceeds md.spec.replicas and reports when the budget is used up', () => {
    expect(newMSNewReplicas(md(3, 10, 0), [ms('old', 'v1', 3), ms('new', 'v2', 0)], 0).replicas).toBe(3);
    expect(newMSNewReplicas(md(3, 1, 0), [ms('old', 'v1', 3), ms('new', 'v2', 1)], 1)).toEqual({
      replicas: 1,
      note: '4 current Machines >= 3 MachineDeployment spec.replicas + 1 maxSurge',
    });
  });
});

describe('machineTemplateUpToDate', () => {
  it('ignores in-place propagated fields but not version, refs or failure domain', () => {
    const base = { spec: { version: 'v1.30.0', infrastructureRef: { kind: 'DockerMachineTemplate', name: 'a' } } };
    expect(
      machineTemplateUpToDate(base, { metadata: { labels: { x: 'y' } }, spec: { ...base.spec, minReadySeconds: 5 } })
        .upToDate,
    ).toBe(true);
    const changed = machineTemplateUpToDate(base, { spec: { ...base.spec, version: 'v1.31.0' } });
    expect(changed).toEqual({
      upToDate: false,
      result: { logMessages: ['spec.version v1.30.0, v1.31.0 required'], eligibleForInPlaceUpdate: true },
    });
    expect(
      machineTemplateUpToDate(base, {
        spec: { ...base.spec, infrastructureRef: { kind: 'DockerMachineTemplate', name: 'b' } },
      }).result.logMessages,
    ).toEqual(['spec.infrastructureRef DockerMachineTemplate a, DockerMachineTemplate b required']);
  });
});

describe('findNewAndOldMachineSets', () => {
  it('picks the matching MS with most replicas and treats other candidates as old, not eligible for in-place', () => {
    const r = findNewAndOldMachineSets(md(3), [ms('a', 'v2', 1), ms('b', 'v2', 2), ms('c', 'v1', 3)], new Date());
    expect(r.newMS?.metadata.name).toBe('b');
    expect(r.oldMSs.map((m) => m.metadata.name)).toEqual(['c', 'a']);
    expect(r.upToDateResults.get('a')?.eligibleForInPlaceUpdate).toBe(false);
    expect(r.upToDateResults.get('c')?.eligibleForInPlaceUpdate).toBe(true);
  });

  it('explains why a new MS is needed', () => {
    const r = findNewAndOldMachineSets(md(3), [ms('c', 'v1', 3)], new Date());
    expect(r.newMS).toBeUndefined();
    expect(r.createReason).toBe(
      "couldn't find MachineSet matching MachineDeployment spec template: MachineSet c needs rollout: spec.failureDomain v1, v2 required",
    );
  });

  it('requires a MachineSet created after an expired rollout.after', () => {
    const d = md(3, 1, 0, '2026-01-02T00:00:00Z');
    const old = ms('a', 'v2', 3, { creationTimestamp: '2026-01-01T00:00:00Z' });
    const r = findNewAndOldMachineSets(d, [old], new Date('2026-02-01T00:00:00Z'));
    expect(r.newMS).toBeUndefined();
    expect(r.createReason).toBe(
      'spec.rollout.after on MachineDeployment set to 2026-01-02T00:00:00Z, no MachineSet has been created afterwards',
    );
    expect(findNewAndOldMachineSets(d, [old], new Date('2026-01-01T12:00:00Z')).newMS).toBe(old);
  });
});

describe('computeRevisionAnnotations', () => {
  it('never decreases the revision of the new MS', () => {
    const cur = ms('n', 'v2', 1, { annotations: { [A.revision]: '7' } });
    expect(computeRevisionAnnotations(cur, [ms('o', 'v1', 1, { annotations: { [A.revision]: '2' } })]).revision).toBe(
      '7',
    );
  });

  it('extends the revision history when the revision changes', () => {
    const cur = ms('n', 'v2', 1, { annotations: { [A.revision]: '1', [A.revisionHistory]: '0' } });
    expect(
      computeRevisionAnnotations(cur, [ms('o', 'v1', 1, { annotations: { [A.revision]: '4' } })]).annotations,
    ).toEqual({
      [A.revision]: '5',
      [A.revisionHistory]: '0,1',
    });
  });

  it('reports an unparsable revision on the new MS', () => {
    const cur = ms('n', 'v2', 1, { annotations: { [A.revision]: 'x' } });
    expect(() => computeRevisionAnnotations(cur, [])).toThrow(/failed to parse revision "x" on MachineSet n/);
  });
});
