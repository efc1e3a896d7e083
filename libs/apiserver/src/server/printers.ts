// Table columns and cells of the built-in kinds, as kube-apiserver's printers produce them
// (kubernetes pkg/printers/internalversion/printers.go; CRDs: apiserver's default table convertor). The server always
// generates the wide cells; kubectl hides columns with priority > 0 unless -o wide.
import { timestampSince } from '@capi/apimachinery';
import { podCells } from './printers-pod';
import { storagePrinters } from './printers-storage';

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface Printer {
  columns: TableColumn[];
  /** Cells of one object (in the core/internal shape: events.k8s.io Events are converted first). */
  cells(obj: Record<string, any>, now: Date): unknown[];
}

// ObjectMeta swagger docs, used by every printer for Name and Age.
const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATION_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const col = (name: string, description: string, extra: Partial<TableColumn> = {}): TableColumn => ({
  name,
  type: 'string',
  format: '',
  description,
  priority: 0,
  ...extra,
});
/** The Name column every printer starts with (CRD tables too). */
export const NAME_COLUMN = col('Name', NAME_DOC, { format: 'name' });
const NAME = NAME_COLUMN;
const AGE = col('Age', CREATION_DOC);
const wide = (name: string, description: string, extra: Partial<TableColumn> = {}) =>
  col(name, description, { priority: 1, ...extra });

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const keys = (v: unknown): number => (v && typeof v === 'object' ? Object.keys(v).length : 0);
const age = (o: Record<string, any>, now: Date) => timestampSince(o.metadata?.creationTimestamp, now);

const NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';
const NODE_ROLE_LABEL = 'kubernetes.io/role';

/** Roles from node-role.kubernetes.io/<role> labels and the kubernetes.io/role label, sorted. */
function nodeRoles(labels: Record<string, string> | undefined): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith(NODE_ROLE_PREFIX) && k.length > NODE_ROLE_PREFIX.length)
      roles.add(k.slice(NODE_ROLE_PREFIX.length));
    else if (k === NODE_ROLE_LABEL && v !== '') roles.add(v);
  }
  return [...roles].sort();
}

/** Only the Ready condition counts, like kube's printer (NodeAllConditions = [Ready]). */
function nodeStatus(node: Record<string, any>): string {
  const ready = (node.status?.conditions ?? []).find((c: any) => c?.type === 'Ready');
  const status = ready ? [ready.status === 'True' ? 'Ready' : 'NotReady'] : ['Unknown'];
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

const nodeAddress = (node: Record<string, any>, type: string): string =>
  (node.status?.addresses ?? []).find((a: any) => a?.type === type)?.address ?? '<none>';
/** kube's printNode: the kernel version with the architecture appended, " (amd64)", when the kubelet reports one. */
function kernelWithArch(info: Record<string, any>): string {
  const kernel = orUnknown(info.kernelVersion);
  return info.architecture ? `${kernel} (${info.architecture})` : kernel;
}

const orUnknown = (v: unknown): string => str(v) || '<unknown>';

const nodePrinter: Printer = {
  columns: [
    NAME,
    col('Status', 'The status of the node'),
    col('Roles', 'The roles of the node'),
    AGE,
    col('Version', 'Kubelet Version reported by the node.'),
    wide('Internal-IP', 'List of addresses reachable to the node.'),
    wide('External-IP', 'List of addresses reachable to the node.'),
    wide('OS-Image', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).'),
    wide('Kernel-Version', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
    wide(
      'Container-Runtime',
      'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
    ),
  ],
  cells(node, now) {
    const info = node.status?.nodeInfo ?? {};
    const roles = nodeRoles(node.metadata?.labels).join(',') || '<none>';
    return [
      node.metadata?.name,
      nodeStatus(node),
      roles,
      age(node, now),
      str(info.kubeletVersion),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      orUnknown(info.osImage),
      kernelWithArch(info),
      orUnknown(info.containerRuntimeVersion),
    ];
  },
};

/** "component, instance" (instance omitted when empty); reporting* fields stand in for an empty source. */
function eventSource(ev: Record<string, any>): string {
  const component = str(ev.source?.component) || str(ev.reportingComponent);
  const instance = str(ev.source?.host) || str(ev.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

const eventPrinter: Printer = {
  columns: [
    col('Last Seen', 'The time at which the most recent occurrence of this event was recorded.'),
    col('Type', 'Type of this event (Normal, Warning), new types could be added in the future'),
    col(
      'Reason',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    col('Object', 'The object that this event is about.'),
    wide(
      'Subobject',
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].',
    ),
    wide('Source', 'The component reporting this event. Should be a short machine understandable string.'),
    col('Message', 'A human-readable description of the status of this operation.'),
    wide('First Seen', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)'),
    wide('Count', 'The number of times this event has occurred.'),
    wide('Name', NAME_DOC, { format: 'name' }),
  ],
  cells(ev, now) {
    let first = timestampSince(ev.firstTimestamp, now);
    if (!ev.firstTimestamp) first = timestampSince(ev.eventTime, now);
    let last = ev.lastTimestamp ? timestampSince(ev.lastTimestamp, now) : first;
    let count = typeof ev.count === 'number' ? ev.count : 0;
    if (ev.series) {
      last = timestampSince(ev.series.lastObservedTime, now);
      count = typeof ev.series.count === 'number' ? ev.series.count : 0;
    } else if (count === 0) count = 1; // singleton events of the new API have no count
    const kind = str(ev.involvedObject?.kind).toLowerCase();
    const target = ev.involvedObject?.name ? `${kind}/${ev.involvedObject.name}` : kind;
    return [
      last,
      str(ev.type),
      str(ev.reason),
      target,
      str(ev.involvedObject?.fieldPath),
      eventSource(ev),
      str(ev.message).trim(),
      first,
      count,
      ev.metadata?.name,
    ];
  },
};

const simple = (columns: TableColumn[], cells: (o: Record<string, any>, now: Date) => unknown[]): Printer => ({
  columns,
  cells,
});

/** What the default table convertor prints (kinds without a printer, e.g. CustomResourceDefinition). */
export const defaultPrinter: Printer = simple([NAME, col('Created At', CREATION_DOC, { type: 'date' })], (o) => {
  const t = Date.parse(o.metadata?.creationTimestamp ?? '');
  return [
    o.metadata?.name,
    Number.isNaN(t) ? '0001-01-01T00:00:00Z' : new Date(t).toISOString().replace(/\.\d+Z$/, 'Z'),
  ];
});

const podPrinter: Printer = {
  columns: [
    NAME,
    col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'The aggregate status of the containers in this pod.'),
    col(
      'Restarts',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AGE,
    wide('IP', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.'),
    wide(
      'Node',
      'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
    ),
    wide(
      'Nominated Node',
      'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
    ),
    wide(
      'Readiness Gates',
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
    ),
  ],
  cells: podCells,
};

// apps/v1 and rbac.authorization.k8s.io/v1 (kube's printDeployment, printDaemonSet, printRole, printRoleBinding).
const CONTAINERS = wide('Containers', 'Names of each container in the template.');
const IMAGES = wide('Images', 'Images referenced by each container in the template.');
const SELECTOR = wide('Selector', 'A label query over pods that are managed by the daemon set.');
const int = (name: string, description: string) => col(name, description, { type: 'integer' });
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
/** kube's layoutContainerCells: names and images, comma-separated. */
function containerCells(o: Record<string, any>): string[] {
  const containers: any[] = o.spec?.template?.spec?.containers ?? [];
  return [containers.map((c) => str(c?.name)).join(','), containers.map((c) => str(c?.image)).join(',')];
}
/** metav1.LabelSelectorAsSelector(...).String() for the common matchLabels form ("<none>" when empty, as kube). */
function selectorCell(selector: Record<string, any> | undefined): string {
  if (!selector) return '<none>';
  const parts = Object.entries(selector.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .concat(
      (selector.matchExpressions ?? []).map(
        (e: any) => `${e.key} ${String(e.operator).toLowerCase()} (${(e.values ?? []).join(',')})`,
      ),
    );
  return parts.sort().join(',') || '<none>';
}
const labelsCell = (m: Record<string, string> | undefined) =>
  Object.entries(m ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',') || '<none>';
const subjectsOf = (o: Record<string, any>, kind: string): string =>
  ((o.subjects ?? []) as any[])
    .filter((s) => s?.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${str(s.namespace)}/${str(s.name)}` : str(s.name)))
    .join(', ');
const roleBindingPrinter = simple(
  [
    NAME,
    col('Role', 'Role of the RoleBinding.'),
    AGE,
    wide('Users', 'Users in the RoleBinding.'),
    wide('Groups', 'Groups in the RoleBinding.'),
    wide('ServiceAccounts', 'ServiceAccounts in the RoleBinding.'),
  ],
  (o, now) => [
    o.metadata?.name,
    `${str(o.roleRef?.kind)}/${str(o.roleRef?.name)}`,
    age(o, now),
    subjectsOf(o, 'User'),
    subjectsOf(o, 'Group'),
    subjectsOf(o, 'ServiceAccount'),
  ],
);
const WORKLOAD_PRINTERS: Record<string, Printer> = {
  'apps/Deployment': simple(
    [
      NAME,
      col('Ready', 'Number of the pod with ready state'),
      int(
        'Up-to-date',
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      ),
      int(
        'Available',
        'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      ),
      AGE,
      CONTAINERS,
      IMAGES,
      wide('Selector', 'Label selector for pods.'),
    ],
    (o, now) => [
      o.metadata?.name,
      `${num(o.status?.readyReplicas)}/${typeof o.spec?.replicas === 'number' ? o.spec.replicas : 1}`,
      num(o.status?.updatedReplicas),
      num(o.status?.availableReplicas),
      age(o, now),
      ...containerCells(o),
      selectorCell(o.spec?.selector),
    ],
  ),
  // kube's printReplicaSet.
  'apps/ReplicaSet': simple(
    [
      NAME,
      int('Desired', 'Number of desired pods.'),
      int('Current', 'Number of actual pods.'),
      int('Ready', 'Number of ready pods.'),
      AGE,
      CONTAINERS,
      IMAGES,
      wide('Selector', 'Label selector for pods.'),
    ],
    (o, now) => [
      o.metadata?.name,
      typeof o.spec?.replicas === 'number' ? o.spec.replicas : 1,
      num(o.status?.replicas),
      num(o.status?.readyReplicas),
      age(o, now),
      ...containerCells(o),
      selectorCell(o.spec?.selector),
    ],
  ),
  'apps/DaemonSet': simple(
    [
      NAME,
      int('Desired', 'The total number of nodes that should be running the daemon pod.'),
      int(
        'Current',
        'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
      ),
      int(
        'Ready',
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
      ),
      int('Up-to-date', 'The total number of nodes that are running updated daemon pod'),
      int(
        'Available',
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
      ),
      col('Node Selector', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
      AGE,
      CONTAINERS,
      IMAGES,
      SELECTOR,
    ],
    (o, now) => [
      o.metadata?.name,
      num(o.status?.desiredNumberScheduled),
      num(o.status?.currentNumberScheduled),
      num(o.status?.numberReady),
      num(o.status?.updatedNumberScheduled),
      num(o.status?.numberAvailable),
      labelsCell(o.spec?.template?.spec?.nodeSelector),
      age(o, now),
      ...containerCells(o),
      selectorCell(o.spec?.selector),
    ],
  ),
  'rbac.authorization.k8s.io/Role': defaultPrinter,
  'rbac.authorization.k8s.io/ClusterRole': defaultPrinter,
  'rbac.authorization.k8s.io/RoleBinding': roleBindingPrinter,
  'rbac.authorization.k8s.io/ClusterRoleBinding': roleBindingPrinter,
};

const PRINTERS: Record<string, Printer> = {
  '/Pod': podPrinter,
  '/Node': nodePrinter,
  '/Event': eventPrinter,
  'events.k8s.io/Event': eventPrinter,
  '/Namespace': simple([NAME, col('Status', 'The status of the namespace'), AGE], (o, now) => [
    o.metadata?.name,
    str(o.status?.phase),
    age(o, now),
  ]),
  '/Secret': simple(
    [
      NAME,
      col('Type', 'Used to facilitate programmatic handling of secret data.'),
      col('Data', 'Data contains the secret data.'),
      AGE,
    ],
    (o, now) => [o.metadata?.name, str(o.type), keys(o.data), age(o, now)],
  ),
  '/ConfigMap': simple([NAME, col('Data', 'Data contains the configuration data.'), AGE], (o, now) => [
    o.metadata?.name,
    keys(o.data) + keys(o.binaryData),
    age(o, now),
  ]),
  // kube 1.36 prints no SECRETS column any more (token Secrets are no longer listed there).
  '/ServiceAccount': simple([NAME, AGE], (o, now) => [o.metadata?.name, age(o, now)]),
  'coordination.k8s.io/Lease': simple(
    [NAME, col('Holder', 'holderIdentity contains the identity of the holder of a current lease.'), AGE],
    (o, now) => [o.metadata?.name, str(o.spec?.holderIdentity), age(o, now)],
  ),
  ...WORKLOAD_PRINTERS,
  ...storagePrinters(NAME, AGE),
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': webhookConfigurationPrinter(),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': webhookConfigurationPrinter(),
};

/** kube's printMutatingWebhook / printValidatingWebhook: the number of webhooks. */
function webhookConfigurationPrinter(): Printer {
  const webhooks = int('Webhooks', 'Webhooks indicates the number of webhooks registered in this configuration');
  return simple([NAME, webhooks, AGE], (o, now) => [o.metadata?.name, (o.webhooks ?? []).length, age(o, now)]);
}

/** The printer kube uses for a built-in kind (the default table convertor when it has none). */
export function builtinPrinter(group: string, kind: string): Printer {
  return PRINTERS[`${group}/${kind}`] ?? defaultPrinter;
}
