// The MachineSet controller alone on envtest (no Machine controller, so nothing consumes pending-hooks): both sides
// of an in-place move (upstream machineset_controller.go startMoveMachines / triggerInPlaceUpdate), scale-down while
// Machines move, and what syncMachines may change on existing Machines.
import { BOOTSTRAP_API_VERSION, CLUSTER_API_VERSION, type Machine, type MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { settle } from '@capi/envtest';
import { eventually, INFRA_API_VERSION, INFRA_GROUP, machinesOf, startHarness, type Harness } from './support/harness';

jest.setTimeout(60_000);

const MOVE = 'in-place-updates.internal.cluster.x-k8s.io/move-machines-to-machineset';
const RECEIVE = 'in-place-updates.internal.cluster.x-k8s.io/receive-machines-from-machinesets';
const PENDING_ACK = 'in-place-updates.internal.cluster.x-k8s.io/pending-acknowledge-move';
const IN_PROGRESS = 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress';
const PENDING_HOOKS = 'runtime.cluster.x-k8s.io/pending-hooks';
const ACK = 'in-place-updates.internal.cluster.x-k8s.io/acknowledged-move';
const MS_REF = (ns: string, name: string) => ({
  apiVersion: CLUSTER_API_VERSION,
  kind: 'MachineSet',
  namespace: ns,
  name,
});

/** A MachineSet as a MachineDeployment makes them: with the machine-template-hash label moves require on a target. */
function machineSet(ns: string, name: string, replicas: number, annotations: Record<string, string> = {}): MachineSet {
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineSet',
    metadata: { name, namespace: ns, annotations, labels: { 'machine-template-hash': name } },
    spec: {
      clusterName: 'c1',
      replicas,
      selector: { matchLabels: { pool: name } },
      deletion: { order: 'Newest' },
      template: {
        metadata: { labels: { pool: name } },
        spec: {
          clusterName: 'c1',
          version: 'v1.30.0',
          bootstrap: { dataSecretName: 'data' },
          infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'tmpl' },
        },
      },
    },
  };
}

describe('MachineSet moves', () => {
  let h: Harness;
  const ns = 'moves';
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: true, machineLifecycle: false });
    await h.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await h.client.create({
      apiVersion: INFRA_API_VERSION,
      kind: 'TestMachineTemplate',
      metadata: { name: 'tmpl', namespace: ns },
      spec: { template: { metadata: { labels: { from: 'tmpl' } }, spec: { image: 'v1' } } },
    });
    await h.client.create({
      apiVersion: INFRA_API_VERSION,
      kind: 'TestMachineTemplate',
      metadata: { name: 'tmpl-v2', namespace: ns },
      spec: { template: { metadata: { annotations: { note: 'v2' } }, spec: { image: 'v2' } } },
    });
    for (const [name, content] of [
      ['kct', 'a'],
      ['kct-v2', 'b'],
    ]) {
      await h.client.create({
        apiVersion: BOOTSTRAP_API_VERSION,
        kind: 'KubeadmConfigTemplate',
        metadata: { name, namespace: ns },
        spec: {
          template: { metadata: { annotations: { note: name } }, spec: { files: [{ path: '/etc/f', content }] } },
        },
      });
    }
  });
  afterAll(async () => {
    await h?.close();
  });

  const owned = async (msName: string) =>
    (await machinesOf(h.client, ns)).filter((m) =>
      m.metadata.ownerReferences?.some((r) => r.controller && r.name === msName),
    );
  const getMS = (name: string) => h.client.get<MachineSet>(MS_REF(ns, name));
  const getMachine = (name: string) =>
    h.client.get<Machine>({ apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: ns, name });
  const getInfra = (name: string) =>
    h.client.get<KubeObject>({ apiVersion: INFRA_API_VERSION, kind: 'TestMachine', namespace: ns, name });
  const machinesWithNodes = async (msName: string, count: number): Promise<Machine[]> => {
    const list = await eventually(async () => {
      const l = await owned(msName);
      return l.length === count && l;
    }, `${count} Machines on ${msName}`);
    // No Machine controller here: give the Machines the Node the move requires.
    for (const m of list) {
      await eventually(async () => {
        const cur = await getMachine(m.metadata.name!);
        await h.client.updateStatus({
          ...cur,
          status: { ...(cur.status ?? {}), nodeRef: { name: `node-${m.metadata.name}` } },
        });
        return true;
      }, `nodeRef on ${m.metadata.name}`);
    }
    return list;
  };
  const scalingDown = async (name: string) =>
    (await getMS(name)).status?.conditions?.find((c) => c.type === 'ScalingDown');
  /** Holds `check` for a while (the controller reconciles in the meantime), failing as soon as it does not hold. */
  const staysTrue = async (check: () => Promise<boolean>, label: string, ms = 2000) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (!(await check())) throw new Error(`no longer true: ${label}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('counts a moved Machine in the target status.replicas before acknowledgement, without starting its update', async () => {
    await h.client.create(machineSet(ns, 'to', 0, { [RECEIVE]: 'from' }));
    await h.client.create(machineSet(ns, 'from', 2));
    await machinesWithNodes('from', 2);
    await h.client.patch(MS_REF(ns, 'from'), 'merge', {
      metadata: { annotations: { [MOVE]: 'to' } },
      spec: { replicas: 1 },
    });
    const moved = await eventually(async () => {
      const list = await owned('to');
      return list.length === 1 && list[0];
    }, 'one Machine moved to "to"');
    expect(moved.metadata.annotations).toMatchObject({ [PENDING_ACK]: '', [IN_PROGRESS]: '' });
    expect(moved.metadata.labels).toMatchObject({ pool: 'to', 'cluster.x-k8s.io/set-name': 'to' });
    expect(moved.metadata.ownerReferences?.filter((r) => r.controller)).toEqual([
      expect.objectContaining({ kind: 'MachineSet', name: 'to' }),
    ]);
    // Upstream setReplicas counts every Machine the MS controls; the pending one is not removable, so no scale-down.
    await eventually(
      async () => (await getMS('to')).status?.replicas === 1,
      'target status.replicas counts the moved Machine',
    );
    await eventually(
      async () => (await getMS('from')).status?.replicas === 1,
      'source status.replicas no longer counts it',
    );
    expect((await scalingDown('to'))?.status).toBe('False');
    await staysTrue(async () => {
      const m = await getMachine(moved.metadata.name!);
      return (
        !m.metadata.deletionTimestamp &&
        m.metadata.annotations?.[PENDING_ACK] === '' &&
        m.metadata.annotations?.[PENDING_HOOKS] === undefined
      );
    }, 'unacknowledged Machine kept, its update not started');
  });

  it('starts the update of an unacknowledged moved Machine once the MachineSet no longer receives Machines', async () => {
    const [moved] = await owned('to');
    const name = moved.metadata.name!;
    const infraBefore = await getInfra(name);
    // Every revision of the Machine, to check pending-hooks and the end of pending-acknowledge-move come in one write.
    const revisions: Machine[] = [];
    const watch = await h.client.watch<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: ns }, (ev) => {
      if (ev.object.metadata.name === name) revisions.push(ev.object);
    });
    // E.g. the MachineDeployment spec changed again: "to" no longer receives Machines and wants another template.
    await h.client.patch(MS_REF(ns, 'to'), 'merge', {
      metadata: { annotations: { [RECEIVE]: null } },
      spec: {
        replicas: 1,
        template: {
          spec: {
            version: 'v1.31.0',
            infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'tmpl-v2' },
          },
        },
      },
    });
    const started = await eventually(async () => {
      const m = await getMachine(name);
      return m.metadata.annotations?.[PENDING_HOOKS] === 'UpdateMachine' && m;
    }, 'UpdateMachine pending on the moved Machine');
    watch.stop();
    expect(started.metadata.annotations?.[PENDING_ACK]).toBeUndefined();
    expect(started.metadata.annotations?.[IN_PROGRESS]).toBe('');
    expect(started.metadata.uid).toBe(moved.metadata.uid);
    expect(started.spec.version).toBe('v1.31.0');
    expect(
      revisions.filter(
        (m) =>
          m.metadata.annotations?.[PENDING_HOOKS] !== undefined && m.metadata.annotations?.[PENDING_ACK] !== undefined,
      ),
    ).toEqual([]);

    const infra = await getInfra(name);
    expect(infra.spec).toEqual({ image: 'v2' });
    expect(infra.metadata.uid).toBe(infraBefore.metadata.uid);
    // Only the cloned-from annotations and the marker come with the in-place apply (upstream completeMoveMachine):
    // not the new template's metadata; the labels written at creation stay.
    expect(infra.metadata.annotations).toMatchObject({
      'cluster.x-k8s.io/cloned-from-name': 'tmpl-v2',
      'cluster.x-k8s.io/cloned-from-groupkind': `TestMachineTemplate.${INFRA_GROUP}`,
      [IN_PROGRESS]: '',
    });
    expect(infra.metadata.annotations?.note).toBeUndefined();
    expect(infra.metadata.labels).toMatchObject({ 'cluster.x-k8s.io/cluster-name': 'c1', from: 'tmpl' });

    const events = (
      await h.client.list<KubeObject & { reason?: string; involvedObject?: { name?: string; kind?: string } }>(
        'v1',
        'Event',
        { namespace: ns },
      )
    ).items;
    expect(
      events.filter(
        (e) =>
          e.reason === 'SuccessfulStartInPlaceUpdate' &&
          e.involvedObject?.kind === 'Machine' &&
          e.involvedObject.name === name,
      ),
    ).toHaveLength(1);
    await eventually(async () => (await getMS('to')).status?.replicas === 1, 'target counts it');
  });

  it('starts the update of an acknowledged moved Machine, BootstrapConfig included', async () => {
    const kctRef = (name: string) => ({
      configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name },
    });
    const withBootstrap = (ms: MachineSet, name: string, version: string): MachineSet => ({
      ...ms,
      spec: {
        ...ms.spec,
        template: { ...ms.spec.template, spec: { ...ms.spec.template.spec, version, bootstrap: kctRef(name) } },
      },
    });
    await h.client.create(withBootstrap(machineSet(ns, 'kto', 0, { [RECEIVE]: 'kfrom' }), 'kct-v2', 'v1.31.0'));
    await h.client.create(withBootstrap(machineSet(ns, 'kfrom', 1), 'kct', 'v1.30.0'));
    const [m] = await machinesWithNodes('kfrom', 1);
    const name = m.metadata.name!;
    const getConfig = () =>
      h.client.get<KubeObject>({ apiVersion: BOOTSTRAP_API_VERSION, kind: 'KubeadmConfig', namespace: ns, name });
    const configBefore = await getConfig();
    await h.client.patch(MS_REF(ns, 'kfrom'), 'merge', {
      metadata: { annotations: { [MOVE]: 'kto' } },
      spec: { replicas: 0 },
    });
    await eventually(async () => (await owned('kto')).length === 1, 'Machine moved to "kto"');
    await staysTrue(
      async () => (await getMachine(name)).metadata.annotations?.[PENDING_HOOKS] === undefined,
      'not started before acknowledgement',
      1000,
    );
    await settle(h.manager, ['machineset']);
    await h.env.resetRequests();
    // What the MachineDeployment does when it acknowledges the move.
    await h.client.patch(MS_REF(ns, 'kto'), 'merge', {
      metadata: { annotations: { [ACK]: name } },
      spec: { replicas: 1 },
    });
    const started = await eventually(async () => {
      const cur = await getMachine(name);
      return cur.metadata.annotations?.[PENDING_HOOKS] === 'UpdateMachine' && cur;
    }, 'UpdateMachine pending');
    await h.client.patch(MS_REF(ns, 'kto'), 'merge', { metadata: { annotations: { poke: '1' } } });
    await settle(h.manager, ['machineset']);
    // One Machine apply starts the update; later reconciles (syncMachines) find that intent in place: no re-apply.
    expect((await h.env.countRequests()).writesByManager['apply cluster.x-k8s.io/machines capi-machineset']).toBe(1);
    expect(started.metadata.annotations?.[PENDING_ACK]).toBeUndefined();
    expect(started.spec.version).toBe('v1.31.0');
    expect(started.spec.bootstrap.configRef?.name).toBe(name);
    const config = await getConfig();
    expect(config.metadata.uid).toBe(configBefore.metadata.uid);
    expect(config.spec).toEqual({ files: [{ path: '/etc/f', content: 'b' }] });
    expect(config.metadata.annotations).toMatchObject({
      'cluster.x-k8s.io/cloned-from-name': 'kct-v2',
      [IN_PROGRESS]: '',
    });
    expect(config.metadata.annotations?.note).toBe('kct'); // from creation; the in-place apply does not bring kct-v2's
    expect(config.metadata.labels).toMatchObject({ 'cluster.x-k8s.io/cluster-name': 'c1' });
    await staysTrue(
      async () => !(await getMachine(name)).metadata.deletionTimestamp,
      'kept as a replica of "kto"',
      1000,
    );
  });

  it('does not create a Machine for one moved in and not yet acknowledged (no Machine counted twice)', async () => {
    await h.client.create(machineSet(ns, 'cto', 0, { [RECEIVE]: 'cfrom' }));
    await h.client.create(machineSet(ns, 'cfrom', 1));
    await machinesWithNodes('cfrom', 1);
    await h.client.patch(MS_REF(ns, 'cfrom'), 'merge', {
      metadata: { annotations: { [MOVE]: 'cto' } },
      spec: { replicas: 0 },
    });
    await eventually(async () => (await owned('cto')).length === 1, 'Machine moved to "cto"');
    // The target's spec.replicas grows (e.g. the MachineDeployment scaled it up) before the move is acknowledged: the
    // moved Machine already is that replica (upstream syncReplicas counts every Machine for scale-up).
    await h.client.patch(MS_REF(ns, 'cto'), 'merge', { spec: { replicas: 1 } });
    await eventually(
      async () => (await getMS('cto')).status?.conditions?.find((c) => c.type === 'ScalingUp')?.status === 'False',
      'cto not scaling up',
    );
    await staysTrue(async () => (await owned('cto')).length === 1, 'no Machine created next to the moved one');
  });

  it('remediates a moved Machine MachineHealthCheck marked before its move is acknowledged', async () => {
    await h.client.create(machineSet(ns, 'rto', 0, { [RECEIVE]: 'rfrom' }));
    await h.client.create(machineSet(ns, 'rfrom', 1));
    const [m] = await machinesWithNodes('rfrom', 1);
    await h.client.patch(MS_REF(ns, 'rfrom'), 'merge', {
      metadata: { annotations: { [MOVE]: 'rto' } },
      spec: { replicas: 0 },
    });
    await eventually(async () => (await owned('rto')).length === 1, 'Machine moved to "rto"');
    // What MachineHealthCheck writes on an unhealthy Machine.
    await eventually(async () => {
      const cur = await getMachine(m.metadata.name!);
      const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      await h.client.updateStatus({
        ...cur,
        status: {
          ...(cur.status ?? {}),
          conditions: [
            {
              type: 'HealthCheckSucceeded',
              status: 'False',
              reason: 'UnhealthyNode',
              message: 'node gone',
              lastTransitionTime: at,
            },
            {
              type: 'OwnerRemediated',
              status: 'False',
              reason: 'WaitingForRemediation',
              message: 'waiting',
              lastTransitionTime: at,
            },
          ],
        },
      });
      return true;
    }, 'unhealthy conditions written');
    await eventually(async () => {
      const cur = await h.client.tryGet<Machine>({
        apiVersion: CLUSTER_API_VERSION,
        kind: 'Machine',
        namespace: ns,
        name: m.metadata.name!,
      });
      return !cur || !!cur.metadata.deletionTimestamp;
    }, 'the unacknowledged moved Machine remediated (deleted)');
  });

  it('deletes instead of moving a Machine marked for remediation that its old MachineSet may not remediate', async () => {
    // An old revision of a MachineDeployment (the MD itself is not needed here): remediation answers CannotBeRemediated,
    // so the scale-down by move is where the unhealthy Machine goes (upstream startMoveMachines).
    const oldRevision = (ms: MachineSet): MachineSet => ({
      ...ms,
      metadata: {
        ...ms.metadata,
        labels: { 'cluster.x-k8s.io/deployment-name': 'ghost' },
        annotations: { ...ms.metadata.annotations, 'machinedeployment.clusters.x-k8s.io/revision': '1' },
      },
    });
    await h.client.create(machineSet(ns, 'rnew', 0, { [RECEIVE]: 'rold' }));
    await h.client.create(oldRevision(machineSet(ns, 'rold', 2)));
    const [a, b] = await machinesWithNodes('rold', 2);
    await eventually(async () => {
      const cur = await getMachine(a.metadata.name!);
      const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      await h.client.updateStatus({
        ...cur,
        status: {
          ...(cur.status ?? {}),
          conditions: [
            {
              type: 'HealthCheckSucceeded',
              status: 'False',
              reason: 'UnhealthyNode',
              message: 'node gone',
              lastTransitionTime: at,
            },
            {
              type: 'OwnerRemediated',
              status: 'False',
              reason: 'WaitingForRemediation',
              message: 'waiting',
              lastTransitionTime: at,
            },
          ],
        },
      });
      return true;
    }, 'unhealthy conditions written');
    await eventually(
      async () =>
        (await getMachine(a.metadata.name!)).status?.conditions?.find((c) => c.type === 'OwnerRemediated')?.reason ===
        'CannotBeRemediated',
      'not remediated by the old revision',
    );
    await h.client.patch(MS_REF(ns, 'rold'), 'merge', {
      metadata: { annotations: { [MOVE]: 'rnew' } },
      spec: { replicas: 0 },
    });
    await eventually(async () => {
      const gone = await h.client.tryGet<Machine>({
        apiVersion: CLUSTER_API_VERSION,
        kind: 'Machine',
        namespace: ns,
        name: a.metadata.name!,
      });
      return (
        (!gone || !!gone.metadata.deletionTimestamp) &&
        (await owned('rnew')).map((m) => m.metadata.name).includes(b.metadata.name)
      );
    }, 'the unhealthy Machine deleted, the healthy one moved');
  });

  it('waits with an error, deleting nothing, while the target does not accept Machines from this MachineSet', async () => {
    await h.client.create(machineSet(ns, 'closed', 0));
    await h.client.create(machineSet(ns, 'leaving', 2));
    const before = await machinesWithNodes('leaving', 2);
    await h.client.patch(MS_REF(ns, 'leaving'), 'merge', {
      metadata: { annotations: { [MOVE]: 'closed' } },
      spec: { replicas: 1 },
    });
    const condition = await eventually(async () => {
      const c = await scalingDown('leaving');
      return c?.reason === 'MoveHandshakeFailed' && c;
    }, 'ScalingDown reports the failed handshake');
    expect(condition.message).toContain('closed only accepts Machines from');
    await staysTrue(
      async () => (await owned('leaving')).filter((m) => !m.metadata.deletionTimestamp).length === 2,
      'both Machines kept',
    );
    // Once the MachineDeployment's other half of the handshake is there, the move happens.
    await h.client.patch(MS_REF(ns, 'closed'), 'merge', { metadata: { annotations: { [RECEIVE]: 'leaving' } } });
    await eventually(
      async () => (await owned('closed')).length === 1 && (await owned('leaving')).length === 1,
      'one Machine moved',
    );
    const all = await machinesOf(h.client, ns);
    expect(
      before.every((b) => all.some((m) => m.metadata.uid === b.metadata.uid && !m.metadata.deletionTimestamp)),
    ).toBe(true);
  });

  // Upstream TestMachineSetReconciler_startMoveMachines "should fail when target MS doesn't have a unique label".
  it('refuses, moving nothing, a target without the machine-template-hash label', async () => {
    const unlabelled = machineSet(ns, 'unlabelled', 0, { [RECEIVE]: 'towards-unlabelled' });
    delete unlabelled.metadata.labels;
    await h.client.create(unlabelled);
    await h.client.create(machineSet(ns, 'towards-unlabelled', 2));
    await machinesWithNodes('towards-unlabelled', 2);
    await h.client.patch(MS_REF(ns, 'towards-unlabelled'), 'merge', {
      metadata: { annotations: { [MOVE]: 'unlabelled' } },
      spec: { replicas: 1 },
    });
    const condition = await eventually(async () => {
      const c = await scalingDown('towards-unlabelled');
      return c?.reason === 'MoveFailed' && c;
    }, 'ScalingDown reports the target without label');
    expect(condition.message).toContain('MachineSet unlabelled does not have the machine-template-hash label');
    await staysTrue(
      async () =>
        (await owned('towards-unlabelled')).filter((m) => !m.metadata.deletionTimestamp).length === 2 &&
        (await owned('unlabelled')).length === 0,
      'both Machines kept, none moved',
    );
    await h.client.patch(MS_REF(ns, 'unlabelled'), 'merge', {
      metadata: { labels: { 'machine-template-hash': 'unlabelled' } },
    });
    await eventually(async () => (await owned('unlabelled')).length === 1, 'one Machine moved once the label is there');
  });

  it('neither moves nor deletes a Machine updating in place when the spec changes again mid-rollout', async () => {
    // "mid" was the new MS of a rollout (one of its Machines still updates in place); the spec changed again, so the
    // MachineDeployment makes "newest" the target and scales "mid" down to 0.
    await h.client.create(machineSet(ns, 'newest', 0, { [RECEIVE]: 'mid' }));
    await h.client.create(machineSet(ns, 'mid', 2));
    const [a, b] = await machinesWithNodes('mid', 2);
    const updating = a.metadata.name! < b.metadata.name! ? a : b;
    const idle = updating === a ? b : a;
    await h.client.patch(
      { apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: ns, name: updating.metadata.name! },
      'merge',
      {
        metadata: { annotations: { [IN_PROGRESS]: '', [PENDING_HOOKS]: 'UpdateMachine' } },
      },
    );
    await h.client.patch(MS_REF(ns, 'mid'), 'merge', {
      metadata: { annotations: { [MOVE]: 'newest' } },
      spec: { replicas: 0 },
    });
    await eventually(
      async () => (await owned('newest')).map((m) => m.metadata.name).includes(idle.metadata.name),
      'the idle Machine moved',
    );
    await staysTrue(async () => {
      const m = await getMachine(updating.metadata.name!);
      return (
        !m.metadata.deletionTimestamp &&
        m.metadata.ownerReferences?.some((r) => r.controller && r.name === 'mid') === true
      );
    }, 'the updating Machine stays on "mid", not deleting');
  });

  it('keeps spec.version of existing Machines when a stand-alone MachineSet template changes (only in-place mutable fields sync)', async () => {
    await h.client.create(machineSet(ns, 'standalone', 1));
    const [m] = await eventually(async () => {
      const l = await owned('standalone');
      return l.length === 1 && l;
    }, '1 Machine');
    expect(m.spec.version).toBe('v1.30.0');
    await h.client.patch(MS_REF(ns, 'standalone'), 'merge', {
      spec: { template: { spec: { version: 'v1.31.0', minReadySeconds: 5 } } },
    });
    const synced = await eventually(async () => {
      const cur = await getMachine(m.metadata.name!);
      return cur.spec.minReadySeconds === 5 && cur;
    }, 'minReadySeconds synced');
    expect(synced.spec.version).toBe('v1.30.0');
    expect(synced.metadata.uid).toBe(m.metadata.uid);
  });
});
