// The rollout bench's cluster (the demo's objects, one control plane Machine and a MachineDeployment of N) and its
// settle checks; also used by the manager chaos test.
import { CLUSTER_API_VERSION, MACHINE_DEPLOYMENT_NAME_LABEL, type Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import { ownerProblems } from '../demo/flow';
import { createDemoCluster, DEFAULT_DEMO, names, type DemoSpec } from '../demo/objects';
import { machineProblems } from '../demo/progress';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A bench cluster: one control plane Machine and a MachineDeployment of `replicas` (the demo's objects). */
export const benchSpec = (replicas: number, cluster = 'bench'): DemoSpec => ({
  ...DEFAULT_DEMO,
  cluster,
  controlPlaneReplicas: 1,
  workerReplicas: replicas,
});

export async function mdMachines(client: Client, s: DemoSpec): Promise<Machine[]> {
  return (
    await client.list<Machine>(CLUSTER_API_VERSION, 'Machine', {
      namespace: s.namespace,
      labelSelector: `${MACHINE_DEPLOYMENT_NAME_LABEL}=${names(s).machineDeployment}`,
    })
  ).items;
}

export const patchMachineDeployment = (client: Client, s: DemoSpec, body: unknown) =>
  client.patch(
    {
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineDeployment',
      namespace: s.namespace,
      name: names(s).machineDeployment,
    },
    'merge',
    body,
  );

export async function createBenchCluster(client: Client, s: DemoSpec, maxUnavailable: number): Promise<void> {
  // No surge; `maxUnavailable` Machines at a time, for the in-place and the replacement rollout alike.
  await createDemoCluster(
    (obj) => client.create(obj),
    s,
    (md) => {
      md.spec.rollout = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable } } };
    },
  );
}

/**
 * What keeps the MachineDeployment from being settled at `version` (empty when settled). The Machines are listed only
 * once the MachineDeployment's status says it is settled: listing (and parsing) every Machine on each poll was ~13% of
 * the process's CPU at 300 Machines, i.e. the harness, not the manager; the answer is empty in the same cases.
 */
export async function machineDeploymentProblems(client: Client, s: DemoSpec, version: string): Promise<string[]> {
  const md = await client.tryGet<KubeObject>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineDeployment',
    namespace: s.namespace,
    name: names(s).machineDeployment,
  });
  const mdProblems = ownerProblems('MachineDeployment', md, s.workerReplicas);
  if (mdProblems.length > 0) return mdProblems;
  const machines = await mdMachines(client, s);
  return [
    ...(machines.length === s.workerReplicas ? [] : [`${machines.length} Machines (want ${s.workerReplicas})`]),
    ...machines.flatMap((m) => machineProblems(m, version)),
  ];
}

/** Polls until settled; throws naming what is not after timeoutMs. `client()` may change (e.g. after a restart). */
export async function waitForMachineDeployment(
  client: () => Client,
  s: DemoSpec,
  version: string,
  timeoutMs: number,
  log: (l: string) => void,
  phase: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let problems: string[] = [];
  let lastLog = Date.now();
  while (Date.now() < deadline) {
    try {
      problems = await machineDeploymentProblems(client(), s, version);
    } catch (e) {
      problems = [`reading state: ${(e as Error).message}`];
    }
    if (problems.length === 0) return;
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`${phase}: ${problems.length} problems, e.g. ${problems.slice(0, 2).join('; ')}`);
    }
    await sleep(Math.min(3000, 200 + 2 * s.workerReplicas)); // each poll lists every Machine: keep it a small share of the CPU
  }
  throw new Error(`${phase} did not converge within ${timeoutMs / 1000} s: ${problems.slice(0, 10).join('; ')}`);
}
