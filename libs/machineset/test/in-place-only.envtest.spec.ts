// The InPlaceOnly rollout policy on a MachineDeployment (this project's extension): a covered change goes in place; a
// change the updaters do not cover (here partly: the reference updater covers the version, nobody the infrastructure
// template) replaces nothing and says why in RolloutBlocked; MHC remediation of a held-back MachineSet's Machine
// replaces it from that MachineSet's own template; a revert clears the condition; a new updater that covers the rest
// lets the rollout resume in place. Machines created or deleted are counted by UID from a watch.
import { CLUSTER_API_VERSION, encodePatch, type Machine, type MachineDeployment, type MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { ROLLOUT_POLICY_ANNOTATION } from '@capi/inplace';
import {
  conditionStatus,
  createDeployment,
  describeNamespace,
  eventually,
  INFRA_API_VERSION,
  machinesOf,
  MD_REF,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(180_000);

const NS = 'in-place-only';
const NOW = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

describe('MachineDeployment with the InPlaceOnly rollout policy', () => {
  let h: Harness;
  const created = new Set<string>();
  const deleted = new Set<string>();
  let stopWatch: (() => void) | undefined;

  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: true, inPlaceOnlyRecheckMs: 500 });
    await createDeployment(h.client, NS, {
      replicas: 2,
      version: 'v1.30.0',
      maxSurge: 1,
      maxUnavailable: 1,
      templates: { tmpl: { image: 'v1' }, tmpl2: { image: 'v2' } },
    });
    await h.client.patch(MD_REF(NS), 'merge', {
      metadata: { annotations: { [ROLLOUT_POLICY_ANNOTATION]: 'InPlaceOnly' } },
    });
    await settled('v1.30.0', 'tmpl');
    // A watch starts with ADDED for what exists: those are not creations.
    const existing = new Set(await uids());
    const w = await h.client.watch<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: NS }, (ev) => {
      if (ev.type === 'ADDED' && !existing.has(ev.object.metadata.uid ?? '')) created.add(ev.object.metadata.uid ?? '');
      if (ev.type === 'DELETED') deleted.add(ev.object.metadata.uid ?? '');
    });
    stopWatch = () => w.stop();
  });
  afterAll(async () => {
    stopWatch?.();
    await h?.close();
  });

  const md = () => h.client.get<MachineDeployment>(MD_REF(NS));
  const blocked = async () => (await md()).status?.conditions?.find((c) => c.type === 'RolloutBlocked');
  const uids = async () => (await machinesOf(h.client, NS)).map((m) => m.metadata.uid ?? '').sort();
  const setTemplate = (version: string, infra: string) =>
    h.client.patch(MD_REF(NS), 'merge', {
      spec: { template: { spec: { version, infrastructureRef: { name: infra } } } },
    });

  /**
   * Two Machines at `version` from `infra`, available and up to date, no other MachineSet with replicas, and the
   * MachineDeployment's status saying so: the planner reads availability from MachineSet status, which follows the
   * Machines' conditions a reconcile later (a change made before then may surge, as upstream's planner does for an
   * unavailable Machine).
   */
  async function settled(version: string, infra: string): Promise<Machine[]> {
    try {
      return await eventually(
        async () => {
          const s = (await md()).status;
          if (s?.replicas !== 2 || s.availableReplicas !== 2 || s.upToDateReplicas !== 2) return false;
          const ms = await machinesOf(h.client, NS);
          const sets = (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: NS })).items;
          const current = sets.filter((s) => s.spec.template.spec.infrastructureRef.name === infra);
          const others = sets.filter((s) => !current.includes(s) && (s.spec.replicas ?? 0) > 0);
          return (
            ms.length === 2 &&
            others.length === 0 &&
            ms.every(
              (m) =>
                m.spec.version === version &&
                !m.metadata.deletionTimestamp &&
                conditionStatus(m, 'Available') === 'True' &&
                conditionStatus(m, 'UpToDate') === 'True',
            ) &&
            ms
          );
        },
        `two Machines at ${version} from ${infra}`,
        90_000,
      );
    } catch (e) {
      (e as Error).message += `\n${await describeNamespace(h.client, NS)}`;
      throw e;
    }
  }

  it('updates a covered change in place (same UIDs) and reports RolloutBlocked False', async () => {
    const before = await uids();
    await setTemplate('v1.31.0', 'tmpl');
    await settled('v1.31.0', 'tmpl');
    expect(await uids()).toEqual(before);
    expect(
      await eventually(async () => (await blocked())?.status === 'False' && blocked(), 'RolloutBlocked False'),
    ).toMatchObject({ reason: 'NotBlocked' });
    expect([...created]).toEqual([]);
    expect([...deleted]).toEqual([]);
  });

  it('replaces nothing for a partly covered change and names only the uncovered field and the updaters asked', async () => {
    const before = await uids();
    await setTemplate('v1.32.0', 'tmpl2');
    const c = await eventually(async () => {
      const b = await blocked();
      return b?.status === 'True' && b;
    }, 'RolloutBlocked True');
    expect(c.reason).toBe('NotCoveredByUpdaters');
    expect(c.message).toContain('not covered by updaters: TestMachineTemplate spec.template.spec.image');
    expect(c.message).toContain('(updaters asked: in-place)');
    expect(c.message).not.toContain('version');
    // What the MD wrote with the plan this condition came from: the new MachineSet stays empty, the old one full.
    const sets = (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: NS })).items;
    const replicasFrom = (infra: string) =>
      sets.filter((s) => s.spec.template.spec.infrastructureRef.name === infra).map((s) => s.spec.replicas);
    expect(replicasFrom('tmpl2')).toEqual([0]);
    expect(replicasFrom('tmpl')).toEqual([2]);
    const ms = await machinesOf(h.client, NS);
    expect(ms.map((m) => m.metadata.uid).sort()).toEqual(before);
    expect(ms.every((m) => m.spec.version === 'v1.31.0')).toBe(true);
    expect([...created]).toEqual([]);
    expect([...deleted]).toEqual([]);
  });

  it('remediates a held-back MachineSet Machine from its own template (the held-back change is not carried in)', async () => {
    const [victim] = await machinesOf(h.client, NS);
    await h.client.apply(
      {
        apiVersion: CLUSTER_API_VERSION,
        kind: 'Machine',
        metadata: { name: victim.metadata.name, namespace: NS },
        status: {
          conditions: [
            { type: 'HealthCheckSucceeded', status: 'False', reason: 'UnhealthyNode', lastTransitionTime: NOW() },
            { type: 'OwnerRemediated', status: 'False', reason: 'WaitingForRemediation', lastTransitionTime: NOW() },
          ],
        },
      },
      { fieldManager: 'capi-machinehealthcheck', force: true, subresource: 'status' },
    );
    const replacement = await eventually(async () => {
      const ms = await machinesOf(h.client, NS);
      const fresh = ms.find((m) => m.metadata.uid !== victim.metadata.uid && created.has(m.metadata.uid ?? ''));
      return deleted.has(victim.metadata.uid ?? '') && fresh?.status?.nodeRef && fresh;
    }, 'the remediated Machine replaced');
    expect(replacement.spec.version).toBe('v1.31.0');
    const infra = await h.client.get<KubeObject>({
      apiVersion: INFRA_API_VERSION,
      kind: 'TestMachine',
      namespace: NS,
      name: replacement.spec.infrastructureRef.name,
    });
    expect(infra.spec).toMatchObject({ image: 'v1' });
    expect(replacement.metadata.ownerReferences?.[0].name).toBe(victim.metadata.ownerReferences?.[0].name);
    expect(created.size).toBe(1);
    expect((await blocked())?.status).toBe('True');
  });

  it('clears RolloutBlocked when the spec is reverted', async () => {
    const before = await uids();
    await setTemplate('v1.31.0', 'tmpl');
    await eventually(async () => (await blocked())?.status === 'False', 'RolloutBlocked False after the revert');
    expect(await uids()).toEqual(before);
    expect(created.size).toBe(1);
  });

  it('resumes in place once a second updater covers the rest', async () => {
    await setTemplate('v1.32.0', 'tmpl2');
    await eventually(async () => (await blocked())?.status === 'True', 'RolloutBlocked True again');
    const before = await uids();
    const createdBefore = created.size;
    await h.addExtension('infra', [
      {
        hook: 'CanUpdateMachineSet',
        name: 'can-update-machineset',
        handle: (req) => ({
          status: 'Success',
          infrastructureMachineTemplatePatch: encodePatch('JSONMergePatch', {
            spec: req.desired.infrastructureMachineTemplate.spec,
          }),
        }),
      },
      { hook: 'UpdateMachine', name: 'update-machine', handle: () => ({ status: 'Success', retryAfterSeconds: 0 }) },
    ]);
    const after = await settled('v1.32.0', 'tmpl2');
    expect(after.map((m) => m.metadata.uid).sort()).toEqual(before);
    expect(created.size).toBe(createdBefore);
    for (const m of after) {
      const infra = await h.client.get<KubeObject>({
        apiVersion: INFRA_API_VERSION,
        kind: 'TestMachine',
        namespace: NS,
        name: m.spec.infrastructureRef.name,
      });
      expect(infra.spec).toMatchObject({ image: 'v2' });
    }
    await eventually(async () => (await blocked())?.status === 'False', 'RolloutBlocked False after the rollout');
  });
});
