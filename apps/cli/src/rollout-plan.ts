// `rollout plan -f FILE`: what the MachineDeployment controller (a KubeadmControlPlane: rollout-plan-kcp.ts) would do with the change in FILE, by running its own
// decisions (@capi/machineset planMachineDeploymentRollout and MachineSetInPlaceChecker, which calls the
// CanUpdateMachineSet extensions registered by the cluster's ExtensionConfigs), then the rollout simulation of
// @capi/machineset for the sequence of steps. Only reads: GET/LIST requests and hook calls, never a write.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import {
  CLUSTER_API_VERSION,
  CLUSTER_GROUP,
  CONTROLPLANE_GROUP,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  RUNTIME_API_VERSION,
  type ExtensionConfig,
  type Machine,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import { groupOf, type KubeObject } from '@capi/apimachinery';
import { ContractVersionResolver } from '@capi/external';
import {
  MachineSetInPlaceChecker,
  maxSurge,
  maxUnavailable,
  planMachineDeploymentRollout,
  runRolloutSimulation,
  type MachineDeploymentLike,
} from '@capi/machineset';
import {
  ExtensionRegistry,
  HttpsExtensionTransport,
  namespaceLabelsFromClient,
  RuntimeClient,
  type ExtensionConfig as RegistryExtensionConfig,
} from '@capi/runtime-client';
import { mergeOverLive } from './plan-merge';
import { CliError, requestError, type Connection } from './kube';
import { rolloutPlanKcp } from './rollout-plan-kcp';
import { formatFirstStep, formatOutcome, simulationInput, type MachineOutcome } from './plan-report';

/** The one MachineDeployment or KubeadmControlPlane in FILE (YAML or JSON); anything else is a CliError. */
export function readPlanFile(file: string, read: (f: string) => string = (f) => readFileSync(f, 'utf8')): KubeObject {
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const docs = parseAllDocuments(text).filter((d) => d.contents !== null);
  const bad = docs.find((d) => d.errors.length > 0);
  if (bad) throw new CliError(`${file} is not valid YAML or JSON: ${bad.errors[0].message.split('\n')[0]}`);
  if (docs.length !== 1)
    throw new CliError(
      `${file} must hold one MachineDeployment or KubeadmControlPlane, it holds ${docs.length} documents`,
    );
  const obj = docs[0].toJS() as Partial<KubeObject> | null;
  const kind = typeof obj === 'object' && obj !== null ? obj.kind : undefined;
  const group = typeof obj?.apiVersion === 'string' ? groupOf(obj.apiVersion) : undefined;
  const known =
    (kind === 'MachineDeployment' && group === CLUSTER_GROUP) ||
    (kind === 'KubeadmControlPlane' && group === CONTROLPLANE_GROUP);
  if (!known)
    throw new CliError(
      `${file} is not a MachineDeployment or KubeadmControlPlane (found ${kind ? `kind ${kind}${obj?.apiVersion ? ` ${obj.apiVersion}` : ''}` : 'no kind'})`,
    );
  if (!obj?.metadata?.name) throw new CliError(`${file}: the ${kind} has no metadata.name`);
  return obj as KubeObject;
}

/**
 * The cluster's Runtime SDK client as the manager's registry holds it: the ExtensionConfigs' discovered handlers
 * (status.handlers, written by the manager's discovery; the CLI does not re-discover, which would write status), called
 * over HTTPS with each ExtensionConfig's CA bundle. In-process updaters of a manager process are not reachable from here.
 */
export async function runtimeClientFor(conn: Connection): Promise<RuntimeClient> {
  const ecs = await conn.api.list<ExtensionConfig>(RUNTIME_API_VERSION, 'ExtensionConfig');
  const registry = new ExtensionRegistry();
  registry.warmUp(ecs.items as unknown as RegistryExtensionConfig[]);
  return new RuntimeClient(registry, new HttpsExtensionTransport(), namespaceLabelsFromClient(conn.client));
}

const quiet = { log: () => undefined };

export async function rolloutPlan(conn: Connection, file: string, now: () => Date = () => new Date()): Promise<string> {
  const change = readPlanFile(file);
  if (change.kind === 'KubeadmControlPlane') return rolloutPlanKcp(conn, change, await runtimeClientFor(conn), now);
  const namespace = change.metadata.namespace ?? conn.namespace;
  const name = change.metadata.name ?? '';
  const live = await conn.api.tryGet<MachineDeployment>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineDeployment',
    name,
    namespace,
  });
  if (!live) throw new CliError(`machinedeployment "${name}" not found in namespace "${namespace}"`);
  // The file is read as a JSON merge patch over the live object (a full manifest replaces every field it sets).
  const md = mergeOverLive(live, change);

  // The MachineSets the MD controls and their Machines, as the MachineDeployment reconciler reads them.
  const owned = await conn.api.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', {
    namespace,
    labelSelector: `${MACHINE_DEPLOYMENT_NAME_LABEL}=${name}`,
  });
  const machineSets = owned.items.filter((ms) =>
    ms.metadata.ownerReferences?.some(
      (r) =>
        r.controller === true &&
        r.kind === 'MachineDeployment' &&
        r.name === name &&
        (!r.uid || r.uid === live.metadata.uid),
    ),
  );
  const allMachines = await conn.api.list<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace });
  const machinesOf = (ms: MachineSet) =>
    allMachines.items
      .filter((m) =>
        m.metadata.ownerReferences?.some(
          (r) => r.controller === true && r.kind === 'MachineSet' && r.name === ms.metadata.name,
        ),
      )
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const machines = machineSets.flatMap(machinesOf);

  const runtimeClient = await runtimeClientFor(conn);
  const checker = new MachineSetInPlaceChecker({
    client: conn.client,
    resolver: new ContractVersionResolver(conn.client),
    runtimeClient,
  });
  const guard = async <T>(p: Promise<T> | T): Promise<T> => {
    try {
      return await p;
    } catch (e) {
      throw requestError(e, 'plan', `machinedeployment "${name}"`, conn.server);
    }
  };
  const plan = await guard(
    planMachineDeploymentRollout({
      md,
      machineSets,
      machines,
      inPlaceUpdatesEnabled: true,
      canUpdateMachineSetInPlace: (oldMS, newMS) => checker.canUpdate(oldMS, newMS, quiet),
      now,
    }),
  );
  const newMS = plan.newMS as unknown as MachineSet | undefined;
  const newName = newMS?.metadata.name;

  // Per Machine: the answer for its MachineSet (the checker remembers what the planner asked; others are asked now).
  const outcomes: MachineOutcome[] = [];
  let allInPlace = true;
  for (const ms of machineSets) {
    const msName = ms.metadata.name ?? '';
    const its = machinesOf(ms);
    if (its.length === 0) continue;
    if (msName === newName) {
      for (const m of its)
        outcomes.push({ machine: m.metadata.name ?? '', machineSet: msName, outcome: { type: 'upToDate' } });
      continue;
    }
    const answer = newMS
      ? await guard(checker.coverage(ms, newMS, quiet))
      : { canUpdate: false, updaters: [], reasons: [] };
    allInPlace &&= answer.canUpdate;
    for (const m of its)
      outcomes.push({
        machine: m.metadata.name ?? '',
        machineSet: msName,
        outcome: answer.canUpdate
          ? { type: 'inPlace', updaters: answer.updaters }
          : { type: 'replaced', reasons: answer.reasons },
      });
  }

  const mdLike = md as unknown as MachineDeploymentLike;
  const replicas = md.spec.replicas ?? 0;
  const surge = maxSurge(mdLike);
  const unavailable = maxUnavailable(mdLike);
  const onDelete = md.spec.rollout?.strategy?.type === 'OnDelete';
  const lines: string[] = [
    `MachineDeployment ${namespace}/${name}: ${replicas} replicas, strategy ${onDelete ? 'OnDelete' : `RollingUpdate, maxSurge ${surge}, maxUnavailable ${unavailable}`}`,
    '',
    'Machines:',
    ...(outcomes.length ? outcomes.map((o) => `  ${formatOutcome(o)}`) : ['  (none)']),
    '',
    'First step (what the MachineDeployment controller would apply now):',
    ...formatFirstStep({
      machineSets: plan.machineSets.map((ms) => {
        const n = ms.metadata.name ?? '';
        return {
          name: n,
          current: machineSets.find((s) => s.metadata.name === n)?.spec.replicas ?? 0,
          planned: plan.scaleIntents.get(n),
          isNew: n === newName,
          created: n === newName && plan.createdNewMS,
          notes: plan.notes.get(n) ?? [],
        };
      }),
    }).map((l) => `  ${l}`),
  ];
  if (!onDelete && machineSets.some((ms) => ms.metadata.name !== newName && machinesOf(ms).length > 0)) {
    const sim = simulationInput(
      machineSets.map((ms) => ({
        name: ms.metadata.name ?? '',
        replicas: machinesOf(ms).length,
        machines: machinesOf(ms).map((m) => m.metadata.name ?? ''),
        upToDate: ms.metadata.name === newName,
      })),
    );
    const result = runRolloutSimulation({
      name: `${namespace}/${name}`,
      replicas,
      maxSurge: surge,
      maxUnavailable: unavailable,
      inPlace: allInPlace,
      initialMachineSets: sim.initial,
    });
    lines.push(
      '',
      `Planned steps (the rollout planner with simulated MachineSet and Machine controllers, every old MachineSet ${allInPlace ? 'updated in place' : 'replaced'}):`,
      ...sim.legend.map((l) => `  ${l}`),
      '',
      result.log.trimEnd(),
    );
    if (!result.converged) lines.push(`(the simulation did not complete: ${result.error})`);
  }
  return lines.join('\n');
}
