// The coverage check through the real RuntimeClient against two HTTPS extension servers composing patches.
import { encodePatch, HOOKS_API_VERSION, type CanUpdateMachineRequest, type HookObject } from '@capi/api';
import {
  createExtensionServer,
  discoverExtension,
  ExtensionRegistry,
  HttpsExtensionTransport,
  RuntimeClient,
  type ExtensionConfig,
  type ExtensionServer,
} from '@capi/runtime-client';
import { compare as jsonDiff } from 'fast-json-patch';
import { canExtensionsUpdate } from '@capi/inplace';

/**
 * Like the reference updater (upstream test/extension/handlers/inplaceupdate/handlers.go): copy the fields this updater
 * handles from desired, answer an RFC 6902 diff.
 */
const copyFields = (field: 'machine' | 'infrastructureMachine', keys: string[]) => (req: CanUpdateMachineRequest) => {
  const cur = req.current[field] as HookObject;
  const modified = structuredClone(cur);
  for (const k of keys)
    (modified.spec as Record<string, unknown>)[k] = (req.desired[field].spec as Record<string, unknown>)[k];
  const patchField = field === 'machine' ? 'machinePatch' : 'infrastructureMachinePatch';
  return { [patchField]: encodePatch('JSONPatch', jsonDiff(cur, modified)) };
};

const hookObj = (kind: string, apiVersion: string, spec: Record<string, unknown>): HookObject => ({
  apiVersion,
  kind,
  metadata: { name: 'm1', namespace: 'default' },
  spec,
});
const request = (): CanUpdateMachineRequest => ({
  apiVersion: HOOKS_API_VERSION,
  kind: 'CanUpdateMachineRequest',
  current: {
    machine: hookObj('Machine', 'cluster.x-k8s.io/v1beta2', {
      clusterName: 'c',
      version: 'v1.30.0',
      failureDomain: 'fd1',
    }),
    infrastructureMachine: hookObj('DevMachine', 'infrastructure.cluster.x-k8s.io/v1beta2', { bootstrapTimeout: '1m' }),
  },
  desired: {
    machine: hookObj('Machine', 'cluster.x-k8s.io/v1beta2', {
      clusterName: 'c',
      version: 'v1.31.0',
      failureDomain: 'fd1',
    }),
    infrastructureMachine: hookObj('DevMachine', 'infrastructure.cluster.x-k8s.io/v1beta2', { bootstrapTimeout: '5m' }),
  },
});

describe('canExtensionsUpdate with two real extension servers', () => {
  const transport = new HttpsExtensionTransport();
  const registry = new ExtensionRegistry();
  const runtimeClient = new RuntimeClient(registry, transport, async () => ({}));
  const servers: ExtensionServer[] = [];

  async function register(configName: string, handle: (req: CanUpdateMachineRequest) => object) {
    const server = await createExtensionServer({
      tls: 'generate',
      handlers: [{ hook: 'CanUpdateMachine', name: 'can-update-machine', handle }],
    });
    servers.push(server);
    const ec: ExtensionConfig = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: configName, resourceVersion: '1' },
      spec: { clientConfig: { url: server.url, caBundle: server.caBundle } },
    };
    registry.add(await discoverExtension(ec, transport));
    return server;
  }

  let versionUpdater: ExtensionServer;
  let infraUpdater: ExtensionServer;
  beforeAll(async () => {
    registry.warmUp([]);
    // Registered in reverse order on purpose: composition follows ExtensionConfig names, not registration order.
    infraUpdater = await register('b-infra-updater', copyFields('infrastructureMachine', ['bootstrapTimeout']));
    versionUpdater = await register('a-version-updater', copyFields('machine', ['version']));
  });
  afterAll(async () => {
    transport.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it('each updater covers part of the change; together they cover it, in name order', async () => {
    const req = request();
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient,
      forObject: { metadata: { namespace: 'default' } },
      request: req,
    });
    expect(r).toEqual({
      canUpdate: true,
      reasons: [],
      extensions: ['can-update-machine.a-version-updater', 'can-update-machine.b-infra-updater'],
      contributors: ['a-version-updater', 'b-infra-updater'],
      uncovered: [],
    });
    // The second updater received `current` already carrying the first one's patch.
    const seenByInfra = infraUpdater.requests.at(-1)!.body as CanUpdateMachineRequest;
    expect(seenByInfra.current.machine.spec!.version).toBe('v1.31.0');
    expect((versionUpdater.requests.at(-1)!.body as CanUpdateMachineRequest).current.machine.spec!.version).toBe(
      'v1.30.0',
    );
  });

  it('a change neither updater handles is not covered, with reasons after both patches', async () => {
    const req = request();
    req.desired.machine.spec!.failureDomain = 'fd2';
    const r = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient,
      forObject: { metadata: { namespace: 'default' } },
      request: req,
    });
    expect(r.canUpdate).toBe(false);
    expect(r.reasons).toEqual(['Machine cannot be updated in-place: failureDomain: "fd1" → "fd2"']);
    expect(r.extensions).toHaveLength(2);
  });
});
