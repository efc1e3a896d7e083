import {
  decodeDeleteOptions,
  decodeObject,
  decodeWatchFrames,
  encodeObject,
  encodeWatchFrame,
  negotiateResponse,
  ProtobufDecodeError,
  ProtobufEncodeError,
  protobufSupported,
} from '.';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { messageType } from './codec';

const meta = {
  name: 'n1',
  namespace: 'ns',
  uid: '6cb98856-6f80-4c82-bfd8-cbc21f95443d',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2026-12-03T12:00:00Z',
  deletionTimestamp: '2026-12-03T12:05:00Z',
  deletionGracePeriodSeconds: 0,
  labels: { app: 'x', empty: '' },
  annotations: { note: 'hello' },
  finalizers: ['example.com/hold'],
  ownerReferences: [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1', controller: true, blockOwnerDeletion: false },
  ],
  managedFields: [
    {
      manager: 'kubectl',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-12-03T12:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {} } },
      subresource: 'status',
    },
  ],
};

/** One full object per served kind, every field set (as JSON, the way the server stores it). */
const samples: Record<string, any>[] = [
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { ...meta, namespace: undefined },
    spec: { finalizers: ['kubernetes'] },
    status: {
      phase: 'Terminating',
      conditions: [
        {
          type: 'NamespaceDeletionContentFailure',
          status: 'False',
          lastTransitionTime: '2026-12-03T12:01:00Z',
          reason: 'ContentDeleted',
          message: 'done',
        },
      ],
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta,
    type: 'kubernetes.io/tls',
    immutable: false,
    data: { 'tls.crt': Buffer.from('cert\u0000\u00ffbytes').toString('base64'), 'tls.key': '' },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta,
    immutable: true,
    data: { a: 'b', multi: 'line\nline' },
    binaryData: { bin: Buffer.from([0, 1, 2, 255]).toString('base64') },
  },
  {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta,
    involvedObject: {
      kind: 'Node',
      name: 'n',
      uid: 'u',
      apiVersion: 'v1',
      resourceVersion: '1',
      fieldPath: 'spec',
      namespace: 'ns',
    },
    reason: 'Started',
    message: 'started it',
    source: { component: 'kubelet', host: 'h' },
    firstTimestamp: '2026-12-03T12:00:00Z',
    lastTimestamp: '2026-12-03T12:00:01Z',
    count: 2,
    type: 'Normal',
    eventTime: '2026-12-03T12:00:00.123456Z',
    series: { count: 4, lastObservedTime: '2026-12-03T12:00:02.000001Z' },
    action: 'Start',
    related: { kind: 'Pod', name: 'p' },
    reportingComponent: 'kubelet',
    reportingInstance: 'kubelet-h',
  },
  {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: meta,
    eventTime: '2026-12-03T12:00:00.500000Z',
    series: { count: 1, lastObservedTime: '2026-12-03T12:00:03.000000Z' },
    reportingController: 'example.com/ctl',
    reportingInstance: 'ctl-1',
    action: 'Reconcile',
    reason: 'Done',
    regarding: { kind: 'Machine', name: 'm', namespace: 'ns', apiVersion: 'cluster.x-k8s.io/v1beta2' },
    related: { kind: 'Node', name: 'n' },
    note: 'a note',
    type: 'Warning',
    deprecatedSource: { component: 'c' },
    deprecatedFirstTimestamp: '2026-12-03T12:00:00Z',
    deprecatedLastTimestamp: '2026-12-03T12:00:09Z',
    deprecatedCount: 7,
  },
  {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: meta,
    spec: {
      holderIdentity: '',
      leaseDurationSeconds: 15,
      acquireTime: '2026-12-03T12:00:00.000000Z',
      renewTime: '2026-12-03T12:00:10.654321Z',
      leaseTransitions: 0,
      strategy: 'OldestEmulationVersion',
      preferredHolder: 'b',
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { ...meta, namespace: undefined },
    spec: {
      podCIDR: '10.0.0.0/24',
      podCIDRs: ['10.0.0.0/24', 'fd00::/64'],
      providerID: 'docker:////n',
      unschedulable: true,
      externalID: 'ext',
      taints: [
        { key: 'k', value: 'v', effect: 'NoSchedule', timeAdded: '2026-12-03T12:00:00Z' },
        { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
      ],
      configSource: { configMap: { namespace: 'kube-system', name: 'cfg', kubeletConfigKey: 'kubelet' } },
    },
    status: {
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      allocatable: { cpu: '3500m', memory: '7Gi' },
      phase: 'Running',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastHeartbeatTime: '2026-12-03T12:00:00Z',
          lastTransitionTime: '2026-12-03T11:00:00Z',
          reason: 'KubeletReady',
          message: 'ok',
        },
      ],
      addresses: [
        { type: 'InternalIP', address: '172.18.0.2' },
        { type: 'Hostname', address: 'n' },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: 'm',
        systemUUID: 's',
        bootID: 'b',
        kernelVersion: '6.1',
        osImage: 'Debian',
        containerRuntimeVersion: 'containerd://1.7',
        kubeletVersion: 'v1.32.0',
        kubeProxyVersion: 'v1.32.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
        swap: { capacity: 0 },
      },
      images: [{ names: ['registry.k8s.io/pause:3.10'], sizeBytes: 320368 }],
      volumesInUse: ['v1'],
      volumesAttached: [{ name: 'v1', devicePath: '/dev/sdb' }],
      config: {
        active: {
          configMap: {
            namespace: 'kube-system',
            name: 'cfg',
            uid: 'u',
            resourceVersion: '1',
            kubeletConfigKey: 'kubelet',
          },
        },
        error: 'none',
      },
      runtimeHandlers: [{ name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: false } }],
      features: { supplementalGroupsPolicy: true },
    },
  },
];

const clean = (o: unknown) => JSON.parse(JSON.stringify(o));

/** Every schema keyword, the JSON unions in each of their forms, and a full CRD around it. */
const schemaWithEverything = {
  id: 'i',
  $schema: 'http://json-schema.org/draft-04/schema#',
  $ref: '#/definitions/x',
  description: 'd',
  type: 'object',
  format: 'f',
  title: 't',
  default: { a: [1, 'two', null, true] },
  maximum: 10.5,
  exclusiveMaximum: true,
  minimum: 0,
  exclusiveMinimum: true,
  maxLength: 0,
  minLength: 1,
  pattern: '^a',
  maxItems: 3,
  minItems: 0,
  uniqueItems: true,
  multipleOf: 0.5,
  enum: ['a', 1, { o: 1 }, null],
  maxProperties: 4,
  minProperties: 0,
  required: ['spec'],
  items: { type: 'string' },
  allOf: [{ type: 'object' }],
  oneOf: [{ required: ['a'] }],
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  not: { type: 'boolean' },
  properties: {
    spec: {
      type: 'object',
      properties: { tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } },
      additionalProperties: false,
    },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    open: { type: 'object', additionalProperties: true },
  },
  additionalProperties: { type: 'string' },
  patternProperties: { '^x-': { type: 'string' } },
  dependencies: { a: ['b', 'c'], d: { required: ['e'] } },
  additionalItems: false,
  definitions: { x: { type: 'string' } },
  externalDocs: { description: 'docs', url: 'https://example.com' },
  example: 'ex',
  nullable: true,
  'x-kubernetes-preserve-unknown-fields': true,
  'x-kubernetes-embedded-resource': true,
  'x-kubernetes-int-or-string': true,
  'x-kubernetes-list-map-keys': ['name'],
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-map-type': 'atomic',
  'x-kubernetes-validations': [
    {
      rule: 'self.a > 0',
      message: 'm',
      messageExpression: '"x"',
      reason: 'FieldValueInvalid',
      fieldPath: '.a',
      optionalOldSelf: false,
    },
  ],
};
samples.push({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { ...meta, namespace: undefined },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    preserveUnknownFields: true,
    names: {
      plural: 'widgets',
      singular: 'widget',
      kind: 'Widget',
      listKind: 'WidgetList',
      shortNames: ['wd'],
      categories: ['all'],
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        deprecated: true,
        deprecationWarning: '',
        schema: { openAPIV3Schema: schemaWithEverything },
        subresources: {
          status: {},
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.selector',
          },
        },
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', format: 'int32', description: 'd', priority: 1, jsonPath: '.spec.size' },
        ],
        selectableFields: [{ jsonPath: '.spec.color' }],
      },
      { name: 'v0', served: false, storage: false },
    ],
    conversion: {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: {
          url: 'https://conv.example.com',
          caBundle: Buffer.from('ca').toString('base64'),
          service: { namespace: 'ns', name: 'conv', path: '/convert', port: 443 },
        },
      },
    },
  },
  status: {
    conditions: [
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: '2026-12-03T12:00:00Z',
        reason: 'InitialNamesAccepted',
        message: 'ok',
      },
    ],
    acceptedNames: { plural: 'widgets', kind: 'Widget' },
    storedVersions: ['v1'],
  },
});

describe('protobuf codec', () => {
  it.each(samples.map((s) => [`${s.apiVersion} ${s.kind}`, s]))(
    '%s round-trips through the wire format unchanged',
    (_name, obj) => {
      expect(decodeObject(encodeObject(obj))).toEqual(clean(obj));
    },
  );

  it.each(samples.map((s) => [`${s.apiVersion} ${s.kind}List`, s]))('%s round-trips', (_name, obj) => {
    const list = {
      apiVersion: obj.apiVersion,
      kind: `${obj.kind}List`,
      metadata: { resourceVersion: '9', continue: 'tok', remainingItemCount: 0 },
      items: [obj, obj],
    };
    // Items of a protobuf list carry no TypeMeta (the list's kind says what they are).
    const { apiVersion: _a, kind: _k, ...item } = clean(obj);
    expect(decodeObject(encodeObject(list))).toEqual({ ...clean(list), items: [item, item] });
  });

  const crdDir = join(__dirname, '../../../../config/crd');
  it.each(readdirSync(crdDir).filter((f) => f.endsWith('.yaml')))(
    'the project CRD %s round-trips unchanged',
    (file) => {
      const crd = parse(readFileSync(join(crdDir, file), 'utf8'));
      // `properties: {}` is an empty Go map with omitempty: kube drops it the same way (and it prunes as its absence does).
      const withoutEmptyProperties = JSON.parse(JSON.stringify(crd), (k, v) =>
        k === 'properties' && v && typeof v === 'object' && !Object.keys(v).length ? undefined : v,
      );
      expect(decodeObject(encodeObject(crd))).toEqual(withoutEmptyProperties);
    },
  );

  it('writes the bytes kube writes: magic, runtime.Unknown{typeMeta, raw}, fields by upstream number', () => {
    const bytes = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
    const raw = '0a030a0161' + '12060a016b120176'; // metadata{name:"a"} (1), data entry {key:"k", value:"v"} (2)
    const typeMeta =
      '0a0f' + '0a02' + Buffer.from('v1').toString('hex') + '1209' + Buffer.from('ConfigMap').toString('hex');
    expect(bytes.toString('hex')).toBe('6b387300' + typeMeta + '120d' + raw + '1a00' + '2200');
  });

  it('drops the zero values Go always writes for non-pointer fields, keeps present pointer zeros', () => {
    const ConfigMap = messageType('k8s.io.api.core.v1.ConfigMap');
    // What client-go sends for `kubectl create configmap`: empty strings and a zero creationTimestamp included.
    const raw = ConfigMap.encode(
      ConfigMap.fromObject({
        metadata: {
          name: 'c',
          generateName: '',
          namespace: '',
          uid: '',
          resourceVersion: '',
          generation: 0,
          creationTimestamp: { seconds: 0, nanos: 0 },
        },
        data: { a: '' },
        immutable: false,
      }),
    ).finish();
    const Unknown = messageType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const body = Buffer.concat([
      Buffer.from('k8s\0'),
      Unknown.encode(Unknown.fromObject({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw })).finish(),
    ]);
    expect(decodeObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: '' },
      immutable: false,
    });
  });

  it('keeps sub-second digits of MicroTime, accepts offsets, and writes times in UTC', () => {
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l' },
      spec: { renewTime: '2026-12-03T14:00:00.000007+02:00' },
    };
    expect((decodeObject(encodeObject(lease)) as any).spec.renewTime).toBe('2026-12-03T12:00:00.000007Z');
  });

  it('encodes Status (errors in the negotiated format)', () => {
    const status = {
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      message: 'configmaps "x" not found',
      reason: 'NotFound',
      code: 404,
      details: {
        name: 'x',
        group: '',
        kind: 'configmaps',
        causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'metadata.name' }],
      },
    };
    expect(decodeObject(encodeObject(status))).toEqual({
      ...status,
      details: { name: 'x', kind: 'configmaps', causes: status.details.causes },
    });
  });

  it('decodes DeleteOptions of any group version', () => {
    const DeleteOptions = messageType('k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions');
    const Unknown = messageType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const raw = DeleteOptions.encode(
      DeleteOptions.fromObject({
        gracePeriodSeconds: 0,
        preconditions: { uid: 'u1' },
        propagationPolicy: 'Foreground',
        dryRun: ['All'],
      }),
    ).finish();
    const body = Buffer.concat([
      Buffer.from('k8s\0'),
      Unknown.encode(
        Unknown.fromObject({ typeMeta: { apiVersion: 'coordination.k8s.io/v1', kind: 'DeleteOptions' }, raw }),
      ).finish(),
    ]);
    expect(decodeDeleteOptions(body)).toEqual({
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u1' },
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    });
  });

  it('frames watch events as kube does: big-endian length, WatchEvent{type, object{raw: the object body}}', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } };
    const body = encodeObject(cm);
    const frame = encodeWatchFrame('ADDED', cm);
    const event = Buffer.concat([
      Buffer.from([0x0a, 0x05]),
      Buffer.from('ADDED'),
      Buffer.from([0x12, body.length + 2, 0x0a, body.length]),
      body,
    ]);
    expect(frame.readUInt32BE(0)).toBe(event.length);
    expect(frame.subarray(4)).toEqual(event);
    const stream = Buffer.concat([frame, encodeWatchFrame('DELETED', cm)]);
    expect(decodeWatchFrames(stream)).toEqual([
      { type: 'ADDED', object: cm },
      { type: 'DELETED', object: cm },
    ]);
    expect(() => decodeWatchFrames(stream.subarray(0, stream.length - 1))).toThrow(/truncated watch frame/);
  });

  it('knows which kinds it serves as protobuf', () => {
    expect(protobufSupported('v1', 'Secret')).toBe(true);
    expect(protobufSupported('v1', 'SecretList')).toBe(true);
    expect(protobufSupported('example.com/v1', 'Widget')).toBe(false);
    expect(protobufSupported('apiextensions.k8s.io/v1', 'CustomResourceDefinition')).toBe(true);
    expect(() => encodeObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).toThrow(
      ProtobufEncodeError,
    );
  });

  it('refuses values of the wrong type when encoding', () => {
    expect(() => encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: ['x'] } })).toThrow(
      /metadata.labels: expected a map/,
    );
    expect(() =>
      encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', creationTimestamp: 'yesterday' } }),
    ).toThrow(/not an RFC 3339 time/);
  });
});

describe('bad protobuf bodies', () => {
  const good = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } });
  const Unknown = messageType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const wrap = (typeMeta: object, raw: Uint8Array, extra: object = {}) =>
    Buffer.concat([Buffer.from('k8s\0'), Unknown.encode(Unknown.fromObject({ typeMeta, raw, ...extra })).finish()]);
  const ObjectMeta = messageType('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  /** A ConfigMap message whose metadata (field 1, under 128 bytes) is `metaBytes`. */
  const cmWith = (metaBytes: Uint8Array) => Buffer.concat([Buffer.from([0x0a, metaBytes.length]), metaBytes]);

  it.each([
    [
      'empty body',
      Buffer.alloc(0),
      /^provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]$/,
    ],
    ['JSON sent as protobuf', Buffer.from('{"apiVersion":"v1"}'), /expected prefix \[107 56 115 0\]/],
    ['truncated envelope', good.subarray(0, good.length - 5), /^unexpected EOF$/],
    [
      'truncated message',
      wrap({ apiVersion: 'v1', kind: 'ConfigMap' }, Buffer.from([0x0a, 0x10, 0x0a])),
      /invalid ConfigMap message/,
    ],
    [
      'invalid wire type',
      wrap({ apiVersion: 'v1', kind: 'ConfigMap' }, Buffer.from([0x0f, 0x01])),
      /invalid ConfigMap message/,
    ],
    [
      'unknown kind',
      wrap({ apiVersion: 'v1', kind: 'Pod' }, Buffer.alloc(0)),
      /^no kind "Pod" is registered for version "v1" in scheme "pkg\/runtime\/scheme.go:111"$/,
    ],
    ['no TypeMeta', wrap({}, Buffer.alloc(0)), /^no kind "" is registered for version ""/],
    [
      'gzip content encoding',
      wrap({ apiVersion: 'v1', kind: 'ConfigMap' }, Buffer.alloc(0), { contentEncoding: 'gzip' }),
      /content encoding "gzip"/,
    ],
    [
      'bad JSON in managedFields',
      wrap(
        { apiVersion: 'v1', kind: 'ConfigMap' },
        cmWith(
          ObjectMeta.encode(
            ObjectMeta.fromObject({ managedFields: [{ fieldsV1: { Raw: Buffer.from('{nope') } }] }),
          ).finish(),
        ),
      ),
      /invalid JSON in FieldsV1/,
    ],
    [
      'time out of range',
      wrap(
        { apiVersion: 'v1', kind: 'ConfigMap' },
        cmWith(ObjectMeta.encode(ObjectMeta.fromObject({ creationTimestamp: { seconds: 1e17 } })).finish()),
      ),
      /invalid ConfigMap message/,
    ],
  ])('%s: a ProtobufDecodeError with a clear message', (_name, body, message) => {
    let err: unknown;
    try {
      decodeObject(body as Buffer);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProtobufDecodeError);
    expect((err as Error).message).toMatch(message);
  });
});

describe('mangled bodies', () => {
  // Deterministic: every truncation point and seeded byte flips of every sample kind.
  let seed = 42;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  it.each(samples.map((s) => [`${s.apiVersion} ${s.kind}`, s]))(
    '%s: decoding a truncated or corrupted body returns an object or a ProtobufDecodeError, nothing else',
    (_name, obj) => {
      const body = encodeObject(obj);
      const variants: Buffer[] = [];
      for (let cut = 0; cut < body.length; cut += Math.max(1, Math.floor(body.length / 150)))
        variants.push(body.subarray(0, cut));
      for (let i = 0; i < 300; i++) {
        const b = Buffer.from(body);
        for (let flips = 1 + rand(3); flips > 0; flips--) b[4 + rand(b.length - 4)] = rand(256);
        variants.push(b);
      }
      for (const v of variants) {
        try {
          expect(typeof decodeObject(v)).toBe('object');
        } catch (e) {
          expect(e).toBeInstanceOf(ProtobufDecodeError);
        }
      }
    },
  );
});

describe('response negotiation', () => {
  it.each([
    [undefined, true, 'json'],
    ['application/vnd.kubernetes.protobuf,application/json', true, 'protobuf'],
    ['application/vnd.kubernetes.protobuf,application/json', false, 'json'],
    ['application/json,application/vnd.kubernetes.protobuf', true, 'json'],
    ['application/json;q=0.5,application/vnd.kubernetes.protobuf', true, 'protobuf'],
    ['application/vnd.kubernetes.protobuf;q=0,application/json', true, 'json'],
    ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json', true, 'json'],
    ['*/*', true, 'json'],
    ['application/vnd.kubernetes.protobuf', true, 'protobuf'],
    ['application/vnd.kubernetes.protobuf', false, undefined],
    ['text/html', true, 'json'],
  ])('Accept %s (protobuf possible: %s) → %s', (accept, possible, expected) => {
    expect(negotiateResponse(accept, possible)).toBe(expected);
  });
});
