// Schemas for the built-in kinds the server serves. They give structure where server-side apply needs it
// (list-map keys, sets, atomic parts) and formats where values have one; everything else preserves unknown
// fields so that the server never prunes real data of a built-in object.
import { OpenApiSchema } from './types';
import { ADMISSION_SCHEMAS } from './builtin-admission';

const loose = (extra: OpenApiSchema = {}): OpenApiSchema => ({
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
  ...extra,
});
const str: OpenApiSchema = { type: 'string' };
const int32: OpenApiSchema = { type: 'integer', format: 'int32' };
const time: OpenApiSchema = { type: 'string', format: 'date-time' };
const stringMap: OpenApiSchema = { type: 'object', additionalProperties: str };
const stringSet: OpenApiSchema = { type: 'array', items: str, 'x-kubernetes-list-type': 'set' };

/** A list of objects merged by key fields (which are required strings). */
function listMap(keys: string[], properties: OpenApiSchema = {}): OpenApiSchema {
  const keyProps = Object.fromEntries(keys.map((k) => [k, str]));
  return {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': keys,
    items: loose({ required: keys, properties: { ...keyProps, ...properties } }),
  };
}

/** metav1.Condition / core conditions: keyed by type. */
// A zero metav1.Time is written as null by kube (Go's encoding/json of a zero Time).
const nullableTime: OpenApiSchema = { ...time, nullable: true };
const conditions = listMap(['type'], {
  status: str,
  reason: str,
  message: str,
  lastTransitionTime: nullableTime,
  lastHeartbeatTime: nullableTime,
});

/** A top-level resource: apiVersion/kind strings, metadata an object, the rest as given. */
const resource = (properties: OpenApiSchema): OpenApiSchema =>
  loose({ properties: { apiVersion: str, kind: str, metadata: { type: 'object' }, ...properties } });

const namespace = resource({
  spec: loose({ properties: { finalizers: stringSet } }),
  status: loose({ properties: { phase: { type: 'string', enum: ['Active', 'Terminating'] }, conditions } }),
});

const secret = resource({
  data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
  stringData: stringMap,
  type: str,
  immutable: { type: 'boolean' },
});

const configMap = resource({
  data: stringMap,
  binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
  immutable: { type: 'boolean' },
});

const objectReference = loose({ 'x-kubernetes-map-type': 'atomic' });

const serviceAccount = resource({
  secrets: { type: 'array', items: objectReference, 'x-kubernetes-list-type': 'atomic' },
  imagePullSecrets: { type: 'array', items: objectReference, 'x-kubernetes-list-type': 'atomic' },
  automountServiceAccountToken: { type: 'boolean' },
});

const coreEvent = resource({
  involvedObject: objectReference,
  related: objectReference,
  reason: str,
  message: str,
  type: str,
  count: int32,
  firstTimestamp: { type: 'string', format: 'date-time', nullable: true },
  lastTimestamp: { type: 'string', format: 'date-time', nullable: true },
  eventTime: { type: 'string', format: 'date-time', nullable: true },
  source: loose(),
  series: loose(),
});

const eventsEvent = resource({
  regarding: objectReference,
  related: objectReference,
  reason: str,
  note: str,
  type: str,
  action: str,
  eventTime: { type: 'string', format: 'date-time', nullable: true },
  reportingController: str,
  reportingInstance: str,
  series: loose(),
  deprecatedCount: int32,
  deprecatedSource: loose(),
});

const lease = resource({
  spec: loose({
    properties: {
      holderIdentity: { type: 'string', nullable: true },
      leaseDurationSeconds: { ...int32, nullable: true },
      acquireTime: { ...time, nullable: true },
      renewTime: { ...time, nullable: true },
      leaseTransitions: { ...int32, nullable: true },
    },
  }),
});

const node = resource({
  spec: loose({
    properties: {
      podCIDR: str,
      podCIDRs: stringSet,
      providerID: str,
      unschedulable: { type: 'boolean' },
      taints: listMap(['key', 'effect'], { value: str, timeAdded: { ...time, nullable: true } }),
    },
  }),
  status: loose({
    properties: {
      conditions,
      addresses: listMap(['type'], { address: str }),
      capacity: loose(),
      allocatable: loose(),
      nodeInfo: loose(),
      images: { type: 'array', items: loose() },
    },
  }),
});

// core/v1 Pod: the list-map keys of k8s.io/api/core/v1 types.go (containers, env, volumes by name; conditions by
// type; podIPs by ip); containerStatuses and tolerations are atomic there.
const atomicList: OpenApiSchema = { type: 'array', items: loose(), 'x-kubernetes-list-type': 'atomic' };
const container = { env: listMap(['name']), image: str };
const pod = resource({
  spec: loose({
    properties: {
      containers: listMap(['name'], container),
      initContainers: listMap(['name'], container),
      ephemeralContainers: listMap(['name'], container),
      volumes: listMap(['name']),
      tolerations: atomicList,
      nodeName: str,
      readinessGates: atomicList,
    },
  }),
  status: loose({
    properties: {
      phase: str,
      conditions: listMap(['type'], {
        status: str,
        reason: str,
        message: str,
        lastProbeTime: nullableTime,
        lastTransitionTime: nullableTime,
      }),
      podIPs: listMap(['ip']),
      hostIPs: atomicList,
      initContainerStatuses: atomicList,
      containerStatuses: atomicList,
      ephemeralContainerStatuses: atomicList,
      startTime: nullableTime,
    },
  }),
});

const crd = resource({
  spec: loose({
    properties: {
      group: str,
      scope: { type: 'string', enum: ['Namespaced', 'Cluster'] },
      names: loose({
        properties: {
          plural: str,
          singular: str,
          kind: str,
          listKind: str,
          shortNames: { type: 'array', items: str },
          categories: { type: 'array', items: str },
        },
      }),
      versions: listMap(['name'], {
        served: { type: 'boolean' },
        storage: { type: 'boolean' },
        schema: loose(),
        subresources: loose(),
      }),
    },
  }),
  status: loose({ properties: { conditions } }),
});

// apps/v1 DaemonSet / Deployment and rbac.authorization.k8s.io/v1 (what kubeadm creates in kube-system and KCP keeps
// in line): the list-map keys of k8s.io/api's +listType/+listMapKey markers; PolicyRule and Subject lists are atomic.
const containerSchema = {
  env: listMap(['name'], { value: str }),
  volumeMounts: listMap(['mountPath'], { name: str }),
  volumeDevices: listMap(['devicePath'], { name: str }),
};
const containers = listMap(['name'], { image: str, ...containerSchema });
const podTemplate = loose({
  properties: {
    metadata: loose({ properties: { labels: stringMap, annotations: stringMap } }),
    spec: loose({
      properties: {
        containers,
        initContainers: containers,
        ephemeralContainers: containers,
        volumes: listMap(['name']),
        imagePullSecrets: listMap(['name']),
        schedulingGates: listMap(['name']),
        resourceClaims: listMap(['name']),
        nodeSelector: stringMap,
      },
    }),
  },
});
const labelSelector = loose({ 'x-kubernetes-map-type': 'atomic', properties: { matchLabels: stringMap } });
const workloadStatus = (counts: string[]) =>
  loose({
    properties: {
      observedGeneration: { type: 'integer', format: 'int64' },
      collisionCount: int32,
      conditions,
      ...Object.fromEntries(counts.map((c) => [c, int32])),
    },
  });
const deployment = resource({
  spec: loose({
    properties: {
      replicas: int32,
      selector: labelSelector,
      template: podTemplate,
      minReadySeconds: int32,
      revisionHistoryLimit: int32,
      progressDeadlineSeconds: int32,
      paused: { type: 'boolean' },
    },
  }),
  status: workloadStatus(['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']),
});
// The ReplicaSets a Deployment owns (kube's apps/v1 ReplicaSet; the in-memory provider's simulated controllers).
const replicaSet = resource({
  spec: loose({
    properties: { replicas: int32, selector: labelSelector, template: podTemplate, minReadySeconds: int32 },
  }),
  status: workloadStatus(['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']),
});
const daemonSet = resource({
  spec: loose({
    properties: { selector: labelSelector, template: podTemplate, minReadySeconds: int32, revisionHistoryLimit: int32 },
  }),
  status: workloadStatus([
    'currentNumberScheduled',
    'numberMisscheduled',
    'desiredNumberScheduled',
    'numberReady',
    'updatedNumberScheduled',
    'numberAvailable',
    'numberUnavailable',
  ]),
});
const policyRules = { type: 'array', 'x-kubernetes-list-type': 'atomic', items: loose() } as OpenApiSchema;
const role = resource({ rules: policyRules });
const clusterRole = resource({ rules: policyRules, aggregationRule: loose() });
const roleBinding = resource({
  subjects: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: loose() },
  roleRef: loose({ 'x-kubernetes-map-type': 'atomic', properties: { apiGroup: str, kind: str, name: str } }),
});
// policy/v1, storage.k8s.io/v1 and the core storage and service kinds (k8s.io/api's +listType/+listMapKey markers):
// what Machine deletion reads and writes (drain, volume detach). IntOrString fields carry kube's int-or-string schema.
const intOrString: OpenApiSchema = {
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
};
const pdb = resource({
  spec: loose({
    properties: {
      minAvailable: intOrString,
      maxUnavailable: intOrString,
      selector: labelSelector,
      unhealthyPodEvictionPolicy: str,
    },
  }),
  status: loose({
    properties: {
      observedGeneration: { type: 'integer', format: 'int64' },
      disruptedPods: { type: 'object', additionalProperties: time },
      disruptionsAllowed: int32,
      currentHealthy: int32,
      desiredHealthy: int32,
      expectedPods: int32,
      conditions: listMap(['type'], {
        status: str,
        reason: str,
        message: str,
        observedGeneration: { type: 'integer', format: 'int64' },
        lastTransitionTime: nullableTime,
      }),
    },
  }),
});
const volumeAttachment = resource({
  spec: loose({
    properties: {
      attacher: str,
      nodeName: str,
      source: loose({ properties: { persistentVolumeName: str, inlineVolumeSpec: loose() } }),
    },
  }),
  status: loose({
    properties: {
      attached: { type: 'boolean' },
      attachmentMetadata: stringMap,
      attachError: loose(),
      detachError: loose(),
    },
  }),
});
const strings: OpenApiSchema = { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' };
const accessModes = strings;
const persistentVolume = resource({
  spec: loose({
    properties: {
      capacity: loose(),
      accessModes,
      claimRef: loose({ 'x-kubernetes-map-type': 'granular' }),
      persistentVolumeReclaimPolicy: str,
      storageClassName: str,
      volumeMode: str,
      mountOptions: strings,
      nodeAffinity: loose(),
    },
  }),
  status: loose({ properties: { phase: str, message: str, reason: str, lastPhaseTransitionTime: nullableTime } }),
});
const persistentVolumeClaim = resource({
  spec: loose({
    properties: {
      accessModes,
      selector: labelSelector,
      resources: loose(),
      volumeName: str,
      storageClassName: str,
      volumeMode: str,
    },
  }),
  status: loose({
    properties: {
      phase: str,
      accessModes,
      capacity: loose(),
      conditions: listMap(['type'], {
        status: str,
        reason: str,
        message: str,
        lastProbeTime: nullableTime,
        lastTransitionTime: nullableTime,
      }),
    },
  }),
});
// ServicePort lists are keyed by port and protocol (types.go: +listMapKey=port, +listMapKey=protocol).
const service = resource({
  spec: loose({
    properties: {
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
        items: loose({
          required: ['port'],
          properties: { name: str, protocol: str, port: int32, targetPort: intOrString, nodePort: int32 },
        }),
      },
      selector: { ...stringMap, 'x-kubernetes-map-type': 'atomic' },
      clusterIP: str,
      clusterIPs: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' },
      type: str,
      externalIPs: strings,
      ipFamilies: strings,
    },
  }),
  status: loose({ properties: { loadBalancer: loose(), conditions } }),
});

const WORKLOAD_SCHEMAS: Record<string, OpenApiSchema> = {
  'apps/v1/Deployment': deployment,
  'apps/v1/DaemonSet': daemonSet,
  'apps/v1/ReplicaSet': replicaSet,
  'rbac.authorization.k8s.io/v1/Role': role,
  'rbac.authorization.k8s.io/v1/ClusterRole': clusterRole,
  'rbac.authorization.k8s.io/v1/RoleBinding': roleBinding,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': roleBinding,
};

const SCHEMAS: Record<string, OpenApiSchema> = {
  'v1/Namespace': namespace,
  'v1/Secret': secret,
  'v1/ConfigMap': configMap,
  'v1/ServiceAccount': serviceAccount,
  'v1/Event': coreEvent,
  'events.k8s.io/v1/Event': eventsEvent,
  'coordination.k8s.io/v1/Lease': lease,
  'v1/Node': node,
  'v1/Pod': pod,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': crd,
  ...WORKLOAD_SCHEMAS,
  'policy/v1/PodDisruptionBudget': pdb,
  'storage.k8s.io/v1/VolumeAttachment': volumeAttachment,
  'v1/PersistentVolume': persistentVolume,
  'v1/PersistentVolumeClaim': persistentVolumeClaim,
  'v1/Service': service,
  ...ADMISSION_SCHEMAS,
};

/** The schema of a built-in kind, or undefined for kinds this server does not describe. Returns a copy. */
export function builtinSchema(apiVersion: string, kind: string): OpenApiSchema | undefined {
  const s = SCHEMAS[`${apiVersion}/${kind}`];
  return s ? structuredClone(s) : undefined;
}
