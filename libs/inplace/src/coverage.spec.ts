import {
  encodePatch,
  HOOKS_API_VERSION,
  type CanUpdateMachineRequest,
  type CanUpdateMachineSetRequest,
  type HookObject,
} from '@capi/api';
import { canExtensionsUpdate, CoverageError, type CoverageHook, type CoverageRuntimeClient } from './coverage';
import { orderExtensions } from './updaters';

type Responder = (request: CanUpdateMachineRequest | CanUpdateMachineSetRequest) => Record<string, unknown>;

/** Scripted runtime client: records the request each handler saw (deep copy) and answers from `responders`. */
function scripted(responders: Record<string, Responder>) {
  const seen: { name: string; request: any }[] = [];
  const client: CoverageRuntimeClient = {
    getAllExtensions: async () => Object.keys(responders),
    callExtension: async (hook: CoverageHook, _f: unknown, name: string, request: never) => {
      seen.push({ name, request: structuredClone(request) });
      return {
        apiVersion: HOOKS_API_VERSION,
        kind: `${hook}Response`,
        status: 'Success',
        ...responders[name](request),
      } as never;
    },
  };
  return { client, seen };
}

const obj = (kind: string, spec: Record<string, unknown>, apiVersion = 'cluster.x-k8s.io/v1beta2'): HookObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', namespace: 'ns' },
  spec,
});
const machineReq = (
  cur: Record<string, unknown>,
  des: Record<string, unknown>,
  infra?: [Record<string, unknown>, Record<string, unknown>],
): CanUpdateMachineRequest => ({
  apiVersion: HOOKS_API_VERSION,
  kind: 'CanUpdateMachineRequest',
  current: {
    machine: obj('Machine', cur),
    infrastructureMachine: obj('DevMachine', infra?.[0] ?? { image: 'a' }, 'infrastructure.cluster.x-k8s.io/v1beta2'),
    bootstrapConfig: obj('KubeadmConfig', { files: [] }, 'bootstrap.cluster.x-k8s.io/v1beta2'),
  },
  desired: {
    machine: obj('Machine', des),
    infrastructureMachine: obj('DevMachine', infra?.[1] ?? { image: 'a' }, 'infrastructure.cluster.x-k8s.io/v1beta2'),
    bootstrapConfig: obj('KubeadmConfig', { files: [] }, 'bootstrap.cluster.x-k8s.io/v1beta2'),
  },
});
const forObject = { metadata: { namespace: 'ns' } };
const setVersion = (v: string) => () => ({
  machinePatch: encodePatch('JSONPatch', [{ op: 'replace', path: '/spec/version', value: v }]),
});

describe('canExtensionsUpdate: CanUpdateMachine', () => {
  it('no patches and a differing version → cannot update, with a readable diff', async () => {
    const { client } = scripted({ 'h.ext': () => ({}) });
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: client,
      forObject,
      request: machineReq({ version: 'v1.30.0' }, { version: 'v1.31.0' }),
    });
    expect(r).toEqual({
      canUpdate: false,
      reasons: ['Machine cannot be updated in-place: version: "v1.30.0" → "v1.31.0"'],
      extensions: ['h.ext'],
      contributors: [],
      uncovered: [{ object: 'Machine', fields: ['spec.version'] }],
    });
  });

  it('a JSONPatch or a JSONMergePatch setting the version covers the change; current is patched', async () => {
    const req = machineReq({ version: 'v1.30.0' }, { version: 'v1.31.0' });
    const json = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: scripted({ 'h.ext': setVersion('v1.31.0') }).client,
      forObject,
      request: req,
    });
    expect(json.canUpdate).toBe(true);
    expect(req.current.machine.spec).toEqual({ version: 'v1.31.0' });
    const merge = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: scripted({
        'h.ext': () => ({ machinePatch: encodePatch('JSONMergePatch', { spec: { version: 'v1.31.0' } }) }),
      }).client,
      forObject,
      request: machineReq({ version: 'v1.30.0' }, { version: 'v1.31.0' }),
    });
    expect(merge).toEqual({
      canUpdate: true,
      reasons: [],
      extensions: ['h.ext'],
      contributors: ['ext'],
      uncovered: [],
    });
  });

  it('patches touching only metadata/status do not count; metadata differences are ignored', async () => {
    const req = machineReq({ version: 'v1.30.0' }, { version: 'v1.31.0' });
    req.desired.machine.metadata.labels = { other: 'labels' };
    const { client } = scripted({
      'h.ext': () => ({
        machinePatch: encodePatch('JSONMergePatch', {
          metadata: { labels: { l: 'v' } },
          status: { version: 'v1.31.0' },
        }),
      }),
    });
    const r = await canExtensionsUpdate({ hook: 'CanUpdateMachine', runtimeClient: client, forObject, request: req });
    expect(r.canUpdate).toBe(false);
    expect(req.current.machine.metadata.labels).toBeUndefined();
  });

  it('differences only in fields cleaned for diff need no coverage', async () => {
    const cur = {
      clusterName: 'a',
      bootstrap: { dataSecretName: 's1' },
      infrastructureRef: { name: 'i1' },
      providerID: 'p1',
      minReadySeconds: 1,
      readinessGates: [{ conditionType: 'A' }],
      deletion: { nodeDrainTimeoutSeconds: 1, nodeVolumeDetachTimeoutSeconds: 1, nodeDeletionTimeoutSeconds: 1 },
      taints: [{ key: 'k', effect: 'NoSchedule' }],
      version: 'v1',
    };
    const des = {
      clusterName: 'b',
      bootstrap: { dataSecretName: 's2' },
      infrastructureRef: { name: 'i2' },
      providerID: 'p2',
      minReadySeconds: 2,
      readinessGates: [],
      deletion: { nodeDrainTimeoutSeconds: 2 },
      version: 'v1',
    };
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: scripted({ 'h.ext': () => ({}) }).client,
      forObject,
      request: machineReq(cur, des),
    });
    expect(r.canUpdate).toBe(true);
  });

  it('infra and bootstrap differences are reported with their kind', async () => {
    const req = machineReq({ version: 'v1' }, { version: 'v1' }, [{ image: 'a' }, { image: 'b' }]);
    req.desired.bootstrapConfig!.spec = { files: [{ path: '/x' }] };
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: scripted({ 'h.ext': () => ({}) }).client,
      forObject,
      request: req,
    });
    expect(r.reasons).toEqual([
      'DevMachine cannot be updated in-place: image: "a" → "b"',
      'KubeadmConfig cannot be updated in-place: files: [] → [{"path":"/x"}]',
    ]);
    expect(r.uncovered).toEqual([
      { object: 'DevMachine', fields: ['spec.image'] },
      { object: 'KubeadmConfig', fields: ['spec.files'] },
    ]);
  });

  it('uncovered: a partly covered change names only the fields no extension patched', async () => {
    const req = machineReq({ version: 'v1' }, { version: 'v2' }, [{ image: 'a' }, { image: 'b' }]);
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: scripted({ 'h.ext': setVersion('v2') }).client,
      forObject,
      request: req,
    });
    expect(r.canUpdate).toBe(false);
    expect(r.uncovered).toEqual([{ object: 'DevMachine', fields: ['spec.image'] }]);
    expect(r.extensions).toEqual(['h.ext']);
  });

  it('no registered extension → cannot update, no call', async () => {
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: scripted({}).client,
      forObject,
      request: machineReq({}, {}),
    });
    expect(r).toEqual({
      canUpdate: false,
      reasons: ['no CanUpdateMachine extensions registered'],
      extensions: [],
      contributors: [],
      uncovered: [],
    });
  });

  it('composes several extensions in ExtensionConfig name order; each sees current patched by the previous ones', async () => {
    const { client, seen } = scripted({
      // Registered out of order: "infra.zz-config" must run after "version.aa-config".
      'infra.zz-config': () => ({
        infrastructureMachinePatch: encodePatch('JSONMergePatch', { spec: { image: 'b' } }),
      }),
      'version.aa-config': setVersion('v1.31.0'),
    });
    const req = machineReq({ version: 'v1.30.0' }, { version: 'v1.31.0' }, [{ image: 'a' }, { image: 'b' }]);
    const r = await canExtensionsUpdate({ hook: 'CanUpdateMachine', runtimeClient: client, forObject, request: req });
    expect(r).toEqual({
      canUpdate: true,
      reasons: [],
      extensions: ['version.aa-config', 'infra.zz-config'],
      contributors: ['aa-config', 'zz-config'],
      uncovered: [],
    });
    expect(seen[0].request.current.machine.spec.version).toBe('v1.30.0');
    expect(seen[1].request.current.machine.spec.version).toBe('v1.31.0');
  });

  it('stops at the first extension after which current == desired', async () => {
    const { client, seen } = scripted({ 'a.one': setVersion('v1.31.0'), 'b.two': setVersion('v9') });
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: client,
      forObject,
      request: machineReq({ version: 'v1.30.0' }, { version: 'v1.31.0' }),
    });
    expect(r.extensions).toEqual(['a.one']);
    expect(seen).toHaveLength(1);
  });

  it('a broken patch is a CoverageError naming the extension and hook; extension errors propagate', async () => {
    const broken = scripted({
      'h.ext': () => ({ machinePatch: { patchType: 'JSONPatch', patch: Buffer.from('{nope').toString('base64') } }),
    });
    const err = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: broken.client,
      forObject,
      request: machineReq({}, {}),
    }).catch((e) => e);
    expect(err).toBeInstanceOf(CoverageError);
    expect(err.message).toMatch(
      /^failed to apply patches from extension h\.ext to the CanUpdateMachine request: patch is not valid JSON/,
    );
    const failing: CoverageRuntimeClient = {
      getAllExtensions: async () => ['h.ext'],
      callExtension: async () => {
        throw new Error('got failure response');
      },
    };
    await expect(
      canExtensionsUpdate({ hook: 'CanUpdateMachine', runtimeClient: failing, forObject, request: machineReq({}, {}) }),
    ).rejects.toThrow('got failure response');
  });

  it('contributors: only the ExtensionConfigs whose patches changed current on the way to the match', async () => {
    const { client } = scripted({
      'noop.aa-config': () => ({}), // answers without patches: called, not a contributor
      'same.bb-config': () => ({ machinePatch: encodePatch('JSONMergePatch', { spec: { version: 'v1.30.0' } }) }), // patch changes nothing
      'version.cc-config': setVersion('v1.31.0'),
      'later.dd-config': setVersion('v9'), // after the match: not even called
    });
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: client,
      forObject,
      request: machineReq({ version: 'v1.30.0' }, { version: 'v1.31.0' }),
    });
    expect(r).toEqual({
      canUpdate: true,
      reasons: [],
      extensions: ['noop.aa-config', 'same.bb-config', 'version.cc-config'],
      contributors: ['cc-config'],
      uncovered: [],
    });
  });

  it('no contributors are reported when the change cannot be done in place', async () => {
    const { client } = scripted({ 'version.aa-config': setVersion('v1.31.0') });
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: client,
      forObject,
      request: machineReq({ version: 'v1.30.0', failureDomain: 'a' }, { version: 'v1.31.0', failureDomain: 'b' }),
    });
    expect(r).toMatchObject({ canUpdate: false, contributors: [] });
  });

  it('orderExtensions sorts by ExtensionConfig name, then handler name', () => {
    expect(orderExtensions(['b.cfg-2', 'a.cfg-2', 'z.cfg-1', 'plain'])).toEqual([
      'plain',
      'z.cfg-1',
      'a.cfg-2',
      'b.cfg-2',
    ]);
  });
});

describe('canExtensionsUpdate: CanUpdateMachineSet', () => {
  const ms = (templateSpec: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    obj('MachineSet', { replicas: 3, template: { metadata: { labels: { a: '1' } }, spec: templateSpec }, ...extra });
  const tmpl = (kind: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    obj(kind, { template: { metadata: {}, spec }, ...extra }, 'infrastructure.cluster.x-k8s.io/v1beta2');
  const msReq = (cur: HookObject[], des: HookObject[]): CanUpdateMachineSetRequest => ({
    apiVersion: HOOKS_API_VERSION,
    kind: 'CanUpdateMachineSetRequest',
    current: { machineSet: cur[0], infrastructureMachineTemplate: cur[1] },
    desired: { machineSet: des[0], infrastructureMachineTemplate: des[1] },
  });

  it('compares only spec.template.spec; replicas, template metadata and template-object extras are ignored', async () => {
    const req = msReq(
      [
        ms({ version: 'v1.30.0', clusterName: 'c' }, { replicas: 1 }),
        tmpl('DevMachineTemplate', { image: 'a' }, { extra: 1 }),
      ],
      [
        ms({ version: 'v1.31.0', clusterName: 'c' }, { selector: {} }),
        tmpl('DevMachineTemplate', { image: 'a' }, { extra: 2 }),
      ],
    );
    const { client } = scripted({
      'h.ext': () => ({
        machineSetPatch: encodePatch('JSONPatch', [
          { op: 'replace', path: '/spec/template/spec/version', value: 'v1.31.0' },
          { op: 'replace', path: '/spec/replicas', value: 99 },
        ]),
      }),
    });
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachineSet',
      runtimeClient: client,
      forObject,
      request: req,
    });
    expect(r.canUpdate).toBe(true);
    expect((req.current.machineSet.spec as { replicas: number }).replicas).toBe(1); // out-of-path change dropped
  });

  it('template spec differences need coverage; a missing spec.template.spec compares as absent, not as an error', async () => {
    const req = msReq(
      [ms({}), tmpl('DevMachineTemplate', { image: 'a' })],
      [ms({}), tmpl('DevMachineTemplate', { image: 'b' })],
    );
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachineSet',
      runtimeClient: scripted({ 'h.ext': () => ({}) }).client,
      forObject,
      request: req,
    });
    expect(r.reasons).toEqual(['DevMachineTemplate cannot be updated in-place: image: "a" → "b"']);
    // Upstream matchesUnstructuredSpec (machinedeployment_canupdatemachineset.go): absent on one side is a diff ...
    const oneSide = msReq([ms({}), obj('DevMachineTemplate', {})], [ms({}), tmpl('DevMachineTemplate', {})]);
    const r1 = await canExtensionsUpdate({
      hook: 'CanUpdateMachineSet',
      runtimeClient: scripted({ 'h.ext': () => ({}) }).client,
      forObject,
      request: oneSide,
    });
    expect(r1.canUpdate).toBe(false);
    expect(r1.reasons).toEqual(['DevMachineTemplate cannot be updated in-place: <root>: <unset> → {}']);
    // ... and absent on both sides is equal.
    const neither = msReq(
      [ms({}), obj('DevMachineTemplate', {})],
      [ms({}), obj('DevMachineTemplate', { template: {} })],
    );
    const r2 = await canExtensionsUpdate({
      hook: 'CanUpdateMachineSet',
      runtimeClient: scripted({ 'h.ext': () => ({}) }).client,
      forObject,
      request: neither,
    });
    expect(r2.canUpdate).toBe(true);
  });

  it('a bootstrap template on one side only cannot be updated', async () => {
    const req = msReq([ms({}), tmpl('DevMachineTemplate', {})], [ms({}), tmpl('DevMachineTemplate', {})]);
    req.desired.bootstrapConfigTemplate = obj(
      'KubeadmConfigTemplate',
      { template: { spec: {} } },
      'bootstrap.cluster.x-k8s.io/v1beta2',
    );
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachineSet',
      runtimeClient: scripted({ 'h.ext': () => ({}) }).client,
      forObject,
      request: req,
    });
    expect(r.reasons).toEqual(['KubeadmConfigTemplate cannot be updated in-place: object is only in desired']);
  });
});
