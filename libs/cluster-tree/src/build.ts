// Groups a Cluster's objects as `clusterctl describe cluster` does (upstream cmd/clusterctl/client/tree/discovery.go
// Discovery; the columns of internal/util/tree/tree.go newRowDescriptor). Pure: the caller lists the objects.
import {
  AVAILABLE_CONDITION,
  type Cluster,
  type Condition,
  getCondition,
  MACHINE_CONTROL_PLANE_LABEL,
  type Machine,
  type MachineDeployment,
  type MachineSet,
  READY_CONDITION,
  UP_TO_DATE_CONDITION,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { machineInPlaceState } from './in-place';
import type { ClusterTree, RowCondition, TreeNode, TreeRole } from './model';

/** The objects of one Cluster; the caller lists them (e.g. by the cluster-name label) and resolves the references. */
export interface ClusterTreeInput {
  cluster: Cluster;
  /** The object of cluster.spec.controlPlaneRef (e.g. a KubeadmControlPlane), when it exists. */
  controlPlane?: KubeObject;
  /** The object of cluster.spec.infrastructureRef, when it exists. */
  infrastructureCluster?: KubeObject;
  machineDeployments: readonly MachineDeployment[];
  machineSets: readonly MachineSet[];
  machines: readonly Machine[];
  /**
   * Optional: the Machines' infrastructure machines and bootstrap configs, matched by the Machines' references. As
   * clusterctl does (NoEcho), one is shown under its Machine only while its Ready condition is not True.
   */
  machineInfrastructure?: readonly KubeObject[];
  bootstrapConfigs?: readonly KubeObject[];
}

type Obj = Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'> & { spec?: unknown; status?: unknown };

const rowCondition = (c: Condition | undefined): RowCondition | undefined =>
  c && {
    type: c.type,
    status: c.status,
    ...(c.reason ? { reason: c.reason } : {}),
    ...(c.message ? { message: c.message } : {}),
    ...(c.lastTransitionTime ? { lastTransitionTime: c.lastTransitionTime } : {}),
  };

const conditionsOf = (o: Obj): Condition[] => {
  const conditions = (o.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? (conditions as Condition[]) : [];
};

const count = (n: unknown): string | undefined => (typeof n === 'number' ? String(n) : undefined);

function objectNode(o: Obj, extra: Partial<TreeNode> = {}): TreeNode {
  const node: TreeNode = { kind: o.kind, apiVersion: o.apiVersion, name: o.metadata.name ?? '', children: [] };
  if (o.metadata.namespace) node.namespace = o.metadata.namespace;
  if (o.metadata.uid) node.uid = o.metadata.uid;
  if (o.metadata.deletionTimestamp) node.deleting = true;
  return Object.assign(node, extra);
}

/** REPLICAS / AVAILABLE / READY / UP TO DATE from status counters (MachineDeployment, MachineSet, control plane). */
function counters(o: Obj): Partial<TreeNode> {
  const spec = (o.spec ?? {}) as { replicas?: number };
  const status = (o.status ?? {}) as Record<string, unknown>;
  const out: Partial<TreeNode> = {};
  if (typeof spec.replicas === 'number') out.replicas = `${count(status.replicas) ?? 0}/${spec.replicas}`;
  const available = count(status.availableReplicas);
  const ready = count(status.readyReplicas);
  const upToDate = count(status.upToDateReplicas);
  if (available !== undefined) out.available = available;
  if (ready !== undefined) out.ready = ready;
  if (upToDate !== undefined) out.upToDate = upToDate;
  return out;
}

function clusterNode(cluster: Cluster): TreeNode {
  const cp = cluster.status?.controlPlane ?? {};
  const w = cluster.status?.workers ?? {};
  const sum = (a?: number, b?: number) => (a ?? 0) + (b ?? 0);
  const has = (a?: number, b?: number) => a !== undefined || b !== undefined;
  const extra: Partial<TreeNode> = {};
  if (has(cp.desiredReplicas, w.desiredReplicas) || has(cp.replicas, w.replicas))
    extra.replicas = `${sum(cp.replicas, w.replicas)}/${sum(cp.desiredReplicas, w.desiredReplicas)}`;
  if (has(cp.availableReplicas, w.availableReplicas))
    extra.available = String(sum(cp.availableReplicas, w.availableReplicas));
  if (has(cp.readyReplicas, w.readyReplicas)) extra.ready = String(sum(cp.readyReplicas, w.readyReplicas));
  if (has(cp.upToDateReplicas, w.upToDateReplicas))
    extra.upToDate = String(sum(cp.upToDateReplicas, w.upToDateReplicas));
  const condition = rowCondition(getCondition(cluster, AVAILABLE_CONDITION));
  if (condition) extra.condition = condition;
  return objectNode({ ...cluster, kind: cluster.kind ?? 'Cluster' }, extra);
}

function providerNode(o: Obj, role: TreeRole): TreeNode {
  const conditions = conditionsOf(o);
  // The control plane row shows Available, other provider objects Ready (newRowDescriptor, *unstructured case).
  const picked =
    (role === 'ControlPlane' ? getCondition(conditions, AVAILABLE_CONDITION) : undefined) ??
    getCondition(conditions, READY_CONDITION);
  const extra: Partial<TreeNode> = { role, ...(role === 'ControlPlane' ? counters(o) : {}) };
  const version = (o.spec as { version?: unknown } | undefined)?.version;
  if (role === 'ControlPlane' && typeof version === 'string') extra.version = version;
  const condition = rowCondition(picked);
  if (condition) extra.condition = condition;
  return objectNode(o, extra);
}

const refMatches = (ref: { kind?: string; name?: string } | undefined, o: Obj) =>
  !!ref && ref.kind === o.kind && ref.name === o.metadata.name;

function machineNode(m: Machine, input: ClusterTreeInput): TreeNode {
  const ready = getCondition(m, READY_CONDITION);
  const extra: Partial<TreeNode> = {
    replicas: '1',
    available: getCondition(m, AVAILABLE_CONDITION)?.status === 'True' ? '1' : '0',
    ready: ready?.status === 'True' ? '1' : '0',
    upToDate: getCondition(m, UP_TO_DATE_CONDITION)?.status === 'True' ? '1' : '0',
  };
  if (m.spec?.version) extra.version = m.spec.version;
  const condition = rowCondition(ready);
  if (condition) extra.condition = condition;
  const inPlace = machineInPlaceState(m);
  if (inPlace) extra.inPlace = inPlace;
  const node = objectNode(m, extra);
  // NoEcho: a provider object whose Ready is True adds nothing to its Machine's row.
  const notEcho = (o: Obj) => getCondition(conditionsOf(o), READY_CONDITION)?.status !== 'True';
  const infra = input.machineInfrastructure?.find((o) => refMatches(m.spec?.infrastructureRef, o));
  if (infra && notEcho(infra)) node.children.push(providerNode(infra, 'MachineInfrastructure'));
  const bootstrap = input.bootstrapConfigs?.find((o) => refMatches(m.spec?.bootstrap?.configRef, o));
  if (bootstrap && notEcho(bootstrap)) node.children.push(providerNode(bootstrap, 'BootstrapConfig'));
  return node;
}

const controllerOf = (o: Obj) => o.metadata.ownerReferences?.find((r) => r.controller);
const isControlledBy = (o: Obj, owner: Obj) => {
  const ref = controllerOf(o);
  return !!ref && ref.kind === owner.kind && ref.name === owner.metadata.name;
};

/** Children in clusterctl's print order: by row name (kind, then name). */
export function compareNodes(a: TreeNode, b: TreeNode): number {
  const ka = `${a.kind} ${a.name}`;
  const kb = `${b.kind} ${b.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * The tree: Cluster → its infrastructure, its control plane (→ control plane Machines, those with the control-plane
 * label), and `Workers` (when there are worker Machines) → MachineDeployments → MachineSets → Machines, with
 * `Other` under Workers for Machines no MachineSet controls. Unlike clusterctl's default, MachineSets are always
 * shown (its --show-machinesets) and Machines are never folded into "N Machines..." groups (its --grouping=false):
 * each Machine has its own in-place state.
 */
export function buildClusterTree(input: ClusterTreeInput): ClusterTree {
  const root = clusterNode(input.cluster);
  const shown = new Set<Machine>();
  const addMachines = (parent: TreeNode, machines: readonly Machine[]) => {
    for (const m of machines) {
      parent.children.push(machineNode(m, input));
      shown.add(m);
    }
    parent.children.sort(compareNodes);
  };

  if (input.infrastructureCluster)
    root.children.push(providerNode(input.infrastructureCluster, 'ClusterInfrastructure'));
  const controlPlaneMachines = input.machines.filter(
    (m) => m.metadata.labels?.[MACHINE_CONTROL_PLANE_LABEL] !== undefined,
  );
  if (input.controlPlane) {
    const cp = providerNode(input.controlPlane, 'ControlPlane');
    root.children.push(cp);
    addMachines(cp, controlPlaneMachines);
  }

  const workers: TreeNode = { kind: 'WorkerGroup', name: 'Workers', virtual: true, children: [] };
  if (input.machines.length !== controlPlaneMachines.length) {
    root.children.push(workers);
    for (const md of input.machineDeployments) {
      const mdNode = objectNode(md, counters(md));
      const condition = rowCondition(getCondition(md, AVAILABLE_CONDITION));
      if (condition) mdNode.condition = condition;
      if (md.spec?.template?.spec?.version) mdNode.version = md.spec.template.spec.version;
      workers.children.push(mdNode);
      for (const ms of input.machineSets.filter((s) => isControlledBy(s, md))) {
        const msNode = objectNode(ms, counters(ms));
        if (ms.spec?.template?.spec?.version) msNode.version = ms.spec.template.spec.version;
        mdNode.children.push(msNode);
        addMachines(
          msNode,
          input.machines.filter((m) => isControlledBy(m, ms)),
        );
      }
      mdNode.children.sort(compareNodes);
    }
    workers.children.sort(compareNodes);
  }
  // Machines nothing above shows (no controlling MachineSet of a listed MachineDeployment; control plane Machines
  // without a control plane object), as clusterctl's "Other" group under Workers.
  const rest = input.machines.filter((m) => !shown.has(m));
  if (rest.length) {
    if (!root.children.includes(workers)) root.children.push(workers);
    const other: TreeNode = { kind: 'OtherGroup', name: 'Other', virtual: true, children: [] };
    workers.children.push(other);
    addMachines(other, rest);
  }
  return { root };
}
