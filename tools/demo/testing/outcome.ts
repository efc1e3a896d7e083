// The checks of a finished demo run, shared by the end-to-end tests on the embedded manager (demo.e2e.spec.ts) and on
// a real management cluster (demo.kube.spec.ts): call inside a describe(), after a beforeAll that ran the demo.
import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL, type Machine } from '@capi/api';
import type { Client } from '@capi/controller-runtime';
import type { DemoResult } from '../flow';
import { DEFAULT_DEMO } from '../objects';
import { deleteClusterAndWait } from '../teardown';
import { NEGATIVE_CONDITIONS, progressHeader } from '../progress';

export interface FinishedDemo {
  result: DemoResult;
  /** A client of the demo's API server, independent of the demo run. */
  client: Client;
  /** What the demo printed. */
  lines: string[];
}

export function itChecksTheDemoOutcome(demo: () => FinishedDemo): void {
  it('reports success with no problems', () => {
    const { result, lines } = demo();
    if (!result.ok) process.stdout.write(lines.join('\n') + '\n');
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it("shows the workload cluster's kube-system following the version (KCP's kubeadm-config and kube-proxy upkeep)", () => {
    const shown = demo().lines.filter((l) => l.includes('workload kube-system:'));
    expect(shown).toHaveLength(3);
    expect(shown[0]).toMatch(
      /kubeadm-config v1\.31\.0 \(kubeadm\.k8s\.io\/v1beta4\), kube-proxy \S+\/kube-proxy:v1\.31\.0\n/,
    );
    expect(shown[1]).toMatch(
      /kubeadm-config v1\.31\.1 \(kubeadm\.k8s\.io\/v1beta4\), kube-proxy \S+\/kube-proxy:v1\.31\.1\n/,
    );
  });

  it('keeps every Machine (same UID) through the in-place version change', () => {
    const inPlace = demo().result.rows.filter((r) => r.step === 'in-place');
    expect(inPlace).toHaveLength(6);
    expect(inPlace.map((r) => r.outcome)).toEqual(Array(6).fill('kept in place'));
    expect(inPlace.every((r) => r.version === 'v1.31.0 -> v1.31.1')).toBe(true);
    expect(inPlace.filter((r) => r.group === 'cp')).toHaveLength(3);
  });

  it('replaces every Machine (new UIDs) on the image change', () => {
    const { rows } = demo().result;
    const rollout = rows.filter((r) => r.step === 'rollout');
    const replaced = rollout.filter((r) => r.outcome === 'replaced').map((r) => r.uid);
    const created = rollout.filter((r) => r.outcome === 'new').map((r) => r.uid);
    const inPlaceUids = rows.filter((r) => r.step === 'in-place').map((r) => r.uid);
    expect(replaced.sort()).toEqual([...inPlaceUids].sort());
    expect(created).toHaveLength(6);
    expect(created.filter((uid) => inPlaceUids.includes(uid))).toEqual([]);
  });

  it('ends with six Running Machines whose conditions are all healthy, read independently of the demo', async () => {
    const { result, client } = demo();
    const list = await client.list<Machine>(CLUSTER_API_VERSION, 'Machine', {
      namespace: 'default',
      labelSelector: `${CLUSTER_NAME_LABEL}=demo`,
    });
    const created = new Set(result.rows.filter((r) => r.step === 'rollout' && r.outcome === 'new').map((r) => r.uid));
    expect(list.items.map((m) => m.metadata.uid).sort()).toEqual([...created].sort());
    for (const m of list.items) {
      expect({ name: m.metadata.name, phase: m.status?.phase, version: m.spec.version }).toEqual({
        name: m.metadata.name,
        phase: 'Running',
        version: 'v1.31.1',
      });
      const conditions = m.status?.conditions ?? [];
      expect(conditions.map((c) => c.type)).toEqual(
        expect.arrayContaining([
          'Ready',
          'Available',
          'UpToDate',
          'InfrastructureReady',
          'BootstrapConfigReady',
          'NodeReady',
          'NodeHealthy',
        ]),
      );
      const unhealthy = conditions
        .filter((c) => c.status !== (NEGATIVE_CONDITIONS.has(c.type) ? 'False' : 'True'))
        .map((c) => `${m.metadata.name} ${c.type}=${c.status}`);
      expect(unhealthy).toEqual([]);
    }
  });

  it('printed live progress for Machines and a summary table', () => {
    const { lines } = demo();
    // Each line: elapsed time, event, name, phase, version, UpToDate, Updating, Ready, short uid (progressHeader).
    const progress = (event: string) =>
      new RegExp(`^ *\\+\\d+\\.\\ds ${event} +demo-\\S+ +\\S+ +v1\\.31\\.[01] +(\\S+) +(\\S+) +(\\S+) +[0-9a-f]{8}`);
    expect(lines).toContain(progressHeader());
    expect(lines.some((l) => progress('ADDED').test(l))).toBe(true);
    expect(lines.some((l) => progress('CHANGED').exec(l)?.[2] === 'True')).toBe(true); // Updating=True
    expect(lines.some((l) => progress('DELETED').test(l))).toBe(true);
    // Everything the demo printed fits 120 columns: live lines, drain details, banners, settle lines, summary.
    expect(lines.flatMap((l) => l.split('\n')).filter((l) => l.length > 120)).toEqual([]);
    expect(lines).toContain('updated in place: 6, replaced: 6, new: 6');
  });

  it('ends as the demo does: deleting the Cluster removes it, its control plane, workers and infrastructure', async () => {
    const { client } = demo();
    const out: string[] = [];
    await deleteClusterAndWait({
      client,
      namespace: DEFAULT_DEMO.namespace,
      cluster: DEFAULT_DEMO.cluster,
      timeoutMs: 120_000,
      pollMs: 250,
      out: (l) => out.push(l),
      elapsed: () => '',
    });
    expect(out[out.length - 1]).toMatch(/^-- deletion: everything gone after [\d.]+ s$/);
    const machines = await client.list(CLUSTER_API_VERSION, 'Machine', {
      namespace: DEFAULT_DEMO.namespace,
      labelSelector: `${CLUSTER_NAME_LABEL}=${DEFAULT_DEMO.cluster}`,
    });
    expect(machines.items).toEqual([]);
  }, 150_000);
}
