import { evalJsonPath, toTable } from './table';
import { builtinResources, resourcesFromCrd, type ResourceInfo } from './registry';

const NOW = new Date('2026-01-01T01:00:00Z');
const AGO_5M = '2026-01-01T00:55:00Z';
const builtin = (group: string, kind: string): ResourceInfo =>
  builtinResources().find((r) => r.group === group && r.kind === kind)!;
const table = (info: ResourceInfo, obj: Record<string, any>) => toTable(info, [obj], {}, NOW);
const headers = (t: ReturnType<typeof toTable>) => t.columnDefinitions.map((c) => `${c.name}${c.priority ? '*' : ''}`);

describe('printer columns', () => {
  const obj = {
    spec: { size: 3, items: [{ n: 'a' }] },
    status: {
      conditions: [
        { type: 'Other', status: 'False' },
        { type: 'Ready', status: 'True' },
      ],
    },
  };
  it.each([
    ['.spec.size', 3],
    ['.spec.items[0].n', 'a'],
    ['.status.conditions[?(@.type=="Ready")].status', 'True'],
    ['.status.missing.deep', undefined],
  ])('%s', (path, expected) => expect(evalJsonPath(obj, path)).toEqual(expected));

  it('bracketed keys with escaped dots', () => {
    expect(
      evalJsonPath(
        { metadata: { labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } } },
        ".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",
      ),
    ).toBe('c1');
  });

  it('builds a Table with Name and the CRD columns in their order, typed, ages as HumanDuration', () => {
    const [info] = resourcesFromCrd({
      metadata: { name: 'ws.x.io' },
      spec: {
        group: 'x.io',
        scope: 'Namespaced',
        names: { kind: 'W', plural: 'ws' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            additionalPrinterColumns: [
              { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
              { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
              { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', priority: 1 },
              { name: 'Missing', type: 'string', jsonPath: '.status.nope' },
            ],
          },
        ],
      },
    });
    const t = table(info, { metadata: { name: 'w', creationTimestamp: '2025-12-31T23:00:00Z' }, ...obj });
    expect(headers(t)).toEqual(['Name', 'Size', 'Age', 'Ready*', 'Missing']);
    expect(t.columnDefinitions[2]).toMatchObject({ type: 'date' });
    expect(t.rows[0].cells).toEqual(['w', 3, '120m', 'True', null]);
  });

  it('a CRD without columns prints Name and Age', () => {
    const [info] = resourcesFromCrd({
      metadata: { name: 'ws.x.io' },
      spec: {
        group: 'x.io',
        scope: 'Namespaced',
        names: { kind: 'W', plural: 'ws' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
    });
    const t = table(info, { metadata: { name: 'w', creationTimestamp: AGO_5M } });
    expect(headers(t)).toEqual(['Name', 'Age']);
    expect(t.rows[0].cells).toEqual(['w', '5m']);
  });
});

describe('built-in printers (kube printers.go)', () => {
  const meta = { name: 'x', namespace: 'default', creationTimestamp: AGO_5M };

  it('ConfigMap: DATA counts data and binaryData', () => {
    const t = table(builtin('', 'ConfigMap'), { metadata: meta, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } });
    expect(headers(t)).toEqual(['Name', 'Data', 'Age']);
    expect(t.rows[0].cells).toEqual(['x', 3, '5m']);
  });

  it('Secret: TYPE, DATA', () => {
    const t = table(builtin('', 'Secret'), { metadata: meta, type: 'Opaque', data: { a: 'MQ==' } });
    expect(headers(t)).toEqual(['Name', 'Type', 'Data', 'Age']);
    expect(t.rows[0].cells).toEqual(['x', 'Opaque', 1, '5m']);
  });

  it('Namespace: STATUS is the phase', () => {
    const t = table(builtin('', 'Namespace'), {
      metadata: { name: 'ns', creationTimestamp: AGO_5M },
      status: { phase: 'Active' },
    });
    expect(headers(t)).toEqual(['Name', 'Status', 'Age']);
    expect(t.rows[0].cells).toEqual(['ns', 'Active', '5m']);
  });

  it('Lease: HOLDER', () => {
    const t = table(builtin('coordination.k8s.io', 'Lease'), { metadata: meta, spec: { holderIdentity: 'me' } });
    expect(t.rows[0].cells).toEqual(['x', 'me', '5m']);
    expect(table(builtin('coordination.k8s.io', 'Lease'), { metadata: meta, spec: {} }).rows[0].cells[1]).toBe('');
  });

  it('Node: status from Ready only, roles sorted, wide columns with <none>/<unknown>', () => {
    const node = {
      metadata: {
        name: 'n1',
        creationTimestamp: AGO_5M,
        labels: {
          'node-role.kubernetes.io/control-plane': '',
          'kubernetes.io/role': 'master',
          'node-role.kubernetes.io/': '',
        },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [
          { type: 'MemoryPressure', status: 'False' },
          { type: 'Ready', status: 'False' },
        ],
        nodeInfo: { kubeletVersion: 'v1.31.0', osImage: 'Ubuntu' },
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      },
    };
    const t = table(builtin('', 'Node'), node);
    expect(headers(t)).toEqual([
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
      'Internal-IP*',
      'External-IP*',
      'OS-Image*',
      'Kernel-Version*',
      'Container-Runtime*',
    ]);
    expect(t.rows[0].cells).toEqual([
      'n1',
      'NotReady,SchedulingDisabled',
      'control-plane,master',
      '5m',
      'v1.31.0',
      '10.0.0.1',
      '<none>',
      'Ubuntu',
      '<unknown>',
      '<unknown>',
    ]);
    expect(table(builtin('', 'Node'), { metadata: { name: 'n2' } }).rows[0].cells.slice(0, 4)).toEqual([
      'n2',
      'Unknown',
      '<none>',
      '<unknown>',
    ]);
    // The architecture follows the kernel version, even an unknown one.
    const arch = (nodeInfo: object) =>
      table(builtin('', 'Node'), { metadata: { name: 'n3' }, status: { nodeInfo } }).rows[0].cells[8];
    expect([arch({ kernelVersion: '6.8.0', architecture: 'arm64' }), arch({ architecture: 'amd64' })]).toEqual([
      '6.8.0 (arm64)',
      '<unknown> (amd64)',
    ]);
  });

  it('Event: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE; wide SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME', () => {
    const ev = {
      metadata: { name: 'ev1', namespace: 'default', creationTimestamp: AGO_5M },
      involvedObject: { kind: 'Machine', name: 'm1', fieldPath: 'spec' },
      type: 'Normal',
      reason: 'Created',
      message: ' made it \n',
      firstTimestamp: '2026-01-01T00:30:00Z',
      lastTimestamp: AGO_5M,
      count: 4,
      source: { component: 'ctrl' },
      reportingInstance: 'host-1',
    };
    const t = table(builtin('', 'Event'), ev);
    expect(headers(t)).toEqual([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject*',
      'Source*',
      'Message',
      'First Seen*',
      'Count*',
      'Name*',
    ]);
    expect(t.rows[0].cells).toEqual([
      '5m',
      'Normal',
      'Created',
      'machine/m1',
      'spec',
      'ctrl, host-1',
      'made it',
      '30m',
      4,
      'ev1',
    ]);
  });

  it('Event of the new API: eventTime stands in for firstTimestamp, series for last seen and count, count defaults to 1', () => {
    const base = {
      metadata: { name: 'e' },
      involvedObject: { kind: 'Node' },
      eventTime: '2026-01-01T00:50:00.000000Z',
      reportingComponent: 'kubelet',
    };
    expect(table(builtin('', 'Event'), base).rows[0].cells).toEqual([
      '10m',
      '',
      '',
      'node',
      '',
      'kubelet',
      '',
      '10m',
      1,
      'e',
    ]);
    const series = table(builtin('', 'Event'), {
      ...base,
      series: { count: 7, lastObservedTime: '2026-01-01T00:59:00.000000Z' },
    });
    expect(series.rows[0].cells).toMatchObject({ 0: '60s', 8: 7 });
  });

  it('events.k8s.io Events print from their core shape (regarding, note, deprecated* fields)', () => {
    const ev = {
      metadata: { name: 'e' },
      regarding: { kind: 'Pod', name: 'p' },
      note: 'hello',
      reason: 'R',
      type: 'Warning',
      reportingController: 'c',
      deprecatedLastTimestamp: AGO_5M,
      deprecatedCount: 2,
    };
    const t = table(builtin('events.k8s.io', 'Event'), ev);
    expect(t.rows[0].cells).toEqual(['5m', 'Warning', 'R', 'pod/p', '', 'c', 'hello', '<unknown>', 2, 'e']);
  });

  it('CustomResourceDefinition: the default table convertor (Name, Created At as RFC 3339)', () => {
    const t = table(builtin('apiextensions.k8s.io', 'CustomResourceDefinition'), {
      metadata: { name: 'ws.x.io', creationTimestamp: AGO_5M },
    });
    expect(t.columnDefinitions.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect(t.rows[0].cells).toEqual(['ws.x.io', AGO_5M]);
  });
});
