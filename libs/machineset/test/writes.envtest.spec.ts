// Writes of a MachineDeployment's Machines counted at the API server (Envtest.countRequests: the embedded server's
// counters or kube-apiserver's audit log), so that a step repeated without need shows as a number: creation, and
// consecutive in-place updates of the same Machines with an InfraMachine and a BootstrapConfig each.
import { MACHINE_FINALIZER, type Machine, type MachineDeployment } from '@capi/api';
import type { RequestCounts } from '@capi/apiserver';
import type { KubeClient } from '@capi/controller-runtime';
import { MACHINESET_METADATA_FIELD_MANAGER } from '../src/machineset/metadata-sync';
import {
  conditionStatus,
  createDeployment,
  describeNamespace,
  eventually,
  machinesOf,
  MD_REF,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(120_000);

const INFRA = 'infrastructure.cluster.x-k8s.io/testmachines';
const BOOTSTRAP = 'bootstrap.cluster.x-k8s.io/kubeadmconfigs';
const MACHINES = 'cluster.x-k8s.io/machines';
const REPLICAS = 3;

/** Writes with this verb on this resource (no subresource), by any field manager. */
function writesOf(counts: RequestCounts, verb: string, resource: string, manager?: string): number {
  return Object.entries(counts.writesByManager)
    .filter(([k]) => {
      const [v, r, m] = k.split(' ');
      return v === verb && r === resource && (manager === undefined || m === manager);
    })
    .reduce((s, [, n]) => s + n, 0);
}

async function settled(c: KubeClient, ns: string, version: string): Promise<Machine[]> {
  try {
    const machines = await eventually(async () => {
      const ms = await machinesOf(c, ns);
      const ok =
        ms.length === REPLICAS &&
        ms.every(
          (m) =>
            !m.metadata.deletionTimestamp &&
            m.spec.version === version &&
            conditionStatus(m, 'Available') === 'True' &&
            conditionStatus(m, 'UpToDate') === 'True' &&
            !Object.keys(m.metadata.annotations ?? {}).some((k) => k.startsWith('in-place-updates.internal.')),
        );
      return ok && ms;
    }, `${REPLICAS} available, up-to-date Machines at ${version} in ${ns}`);
    await eventually(async () => {
      const md = await c.get<MachineDeployment>(MD_REF(ns));
      const s = md.status;
      return s?.replicas === REPLICAS && s.availableReplicas === REPLICAS && s.upToDateReplicas === REPLICAS;
    }, `MachineDeployment ${ns}/md settled`);
    return machines;
  } catch (e) {
    (e as Error).message += `\n${await describeNamespace(c, ns)}`;
    throw e;
  }
}

const uids = (ms: Machine[]) => ms.map((m) => m.metadata.uid).sort();

describe('writes of the MachineSet and Machine controllers, counted at the API server', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: true, bootstrapProvisioner: true });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('creates Machines with the Machine finalizer: the Machine controller writes no finalizer patch', async () => {
    const ns = 'writes-create';
    await h.env.resetRequests();
    await createDeployment(h.client, ns, {
      replicas: REPLICAS,
      version: 'v1.30.0',
      maxSurge: 0,
      maxUnavailable: REPLICAS,
      bootstrapTemplate: 'kct',
    });
    const machines = await settled(h.client, ns, 'v1.30.0');
    for (const m of machines) expect(m.metadata.finalizers).toContain(MACHINE_FINALIZER);
    const counts = await h.env.countRequests();
    // One apply per Machine creates it (finalizer included); its spec is then written by the Machine controller's
    // apply, its status by status patches: no merge patch of a Machine is left at creation.
    expect(writesOf(counts, 'apply', MACHINES, 'capi-machineset')).toBe(REPLICAS);
    expect(writesOf(counts, 'patch', MACHINES)).toBe(0);
  });

  it('a second in-place update of the same Machines writes no managedFields hand-over and no no-op metadata apply', async () => {
    const ns = 'writes-inplace';
    await createDeployment(h.client, ns, {
      replicas: REPLICAS,
      version: 'v1.30.0',
      maxSurge: 0,
      maxUnavailable: REPLICAS,
      bootstrapTemplate: 'kct',
    });
    const created = await settled(h.client, ns, 'v1.30.0');
    const perUpdate: RequestCounts[] = [];
    for (const version of ['v1.31.0', 'v1.32.0']) {
      await h.env.resetRequests();
      await h.client.patch(MD_REF(ns), 'merge', { spec: { template: { spec: { version } } } });
      const updated = await settled(h.client, ns, version);
      expect(uids(updated)).toEqual(uids(created));
      perUpdate.push(await h.env.countRequests());
    }
    for (const counts of perUpdate) {
      for (const resource of [INFRA, BOOTSTRAP]) {
        // The Machine controller's completion patch (update-in-progress removed) is the only merge patch of each
        // InfraMachine / BootstrapConfig: no managedFields hand-over before the MachineSet's apply.
        expect(`${resource}: ${writesOf(counts, 'patch', resource)}`).toBe(`${resource}: ${REPLICAS}`);
        // One metadata apply each: the new MachineSet's set-name and machine-template-hash labels.
        const metadataApply = `apply ${resource} ${MACHINESET_METADATA_FIELD_MANAGER}`;
        expect(`${resource}: ${counts.writesByManager[metadataApply]}`).toBe(`${resource}: ${REPLICAS}`);
        // (The embedded server tells no-ops apart; kube-apiserver's audit log does not, the count above holds there.)
        expect(`${resource}: ${counts.noopWritesByManager[metadataApply] ?? 0}`).toBe(`${resource}: 0`);
      }
    }
  });
});
