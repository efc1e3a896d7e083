// The /scale subresource of CRDs that declare it: GET/PUT/PATCH/apply of an autoscaling/v1 Scale, discovery, and
// the real `kubectl scale` (with and without --current-replicas).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { widgetCrd } from './support/fixtures';
import { kubectlRunner } from './support/kubectl';
import { itEmbedded, startTestServer, type TestServer } from './support/server';
import { rawRequest, type Conn } from './support/test-client';

jest.setTimeout(30000);

const poolCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'pools.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { kind: 'Pool', plural: 'pools', singular: 'pool' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.selector',
          },
        },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { replicas: { type: 'integer' }, image: { type: 'string' } } },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

let ts: TestServer;
let conn: Conn;
let dir: string;
const { run: kubectl, ok } = kubectlRunner(() => join(dir, 'kubeconfig'));
const pools = '/apis/example.com/v1/namespaces/default/pools';
const json = (r: { text: string }) => JSON.parse(r.text);

async function createPool(name: string, replicas = 2): Promise<any> {
  const created = await rawRequest(conn, 'POST', pools, {
    apiVersion: 'example.com/v1',
    kind: 'Pool',
    metadata: { name },
    spec: { replicas, image: 'a' },
  });
  expect(created.code).toBe(201);
  const st = await rawRequest(
    conn,
    'PATCH',
    `${pools}/${name}/status`,
    { status: { replicas: 1, selector: `pool=${name}` } },
    'application/merge-patch+json',
  );
  expect(st.code).toBe(200);
  return json(st);
}
const getPool = async (name: string) => json(await rawRequest(conn, 'GET', `${pools}/${name}`));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'apiserver-scale-'));
  process.env.KUBECACHEDIR = join(dir, 'cache');
  ts = await startTestServer({}, [poolCrd, widgetCrd]);
  conn = ts.conn;
  writeFileSync(join(dir, 'kubeconfig'), ts.kubeconfig, { mode: 0o600 });
});
afterAll(async () => {
  await ts?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('discovery', () => {
  it('lists pools/scale as an autoscaling/v1 Scale, legacy and aggregated', async () => {
    const list = json(await rawRequest(conn, 'GET', '/apis/example.com/v1'));
    expect(list.resources).toContainEqual({
      name: 'pools/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
    expect(list.resources.map((r: any) => r.name)).not.toContain('widgets/scale');
    const agg = json(
      await rawRequest(conn, 'GET', '/apis', undefined, 'application/json', {
        Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      }),
    );
    const pool = agg.items
      .find((g: any) => g.metadata.name === 'example.com')
      .versions[0].resources.find((r: any) => r.resource === 'pools');
    expect(pool.subresources).toEqual([
      {
        subresource: 'status',
        responseKind: { group: 'example.com', version: 'v1', kind: 'Pool' },
        verbs: ['get', 'patch', 'update'],
      },
      {
        subresource: 'scale',
        responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
        verbs: ['get', 'patch', 'update'],
      },
    ]);
  });
});

describe('GET, PUT, PATCH', () => {
  it('reads the Scale from the declared paths', async () => {
    const pool = await createPool('read');
    const r = await rawRequest(conn, 'GET', `${pools}/read/scale`);
    expect(r.code).toBe(200);
    expect(json(r)).toEqual({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: {
        name: 'read',
        namespace: 'default',
        uid: pool.metadata.uid,
        resourceVersion: pool.metadata.resourceVersion,
        creationTimestamp: pool.metadata.creationTimestamp,
      },
      spec: { replicas: 2 },
      status: { replicas: 1, selector: 'pool=read' },
    });
  });

  it('PUT writes spec.replicas only (generation bumped, status and other fields kept); a stale resourceVersion is 409', async () => {
    const pool = await createPool('put');
    const scale = json(await rawRequest(conn, 'GET', `${pools}/put/scale`));
    const r = await rawRequest(conn, 'PUT', `${pools}/put/scale`, {
      ...scale,
      spec: { replicas: 5 },
      status: { replicas: 99 },
    });
    expect(r.code).toBe(200);
    expect(json(r).spec).toEqual({ replicas: 5 });
    const after = await getPool('put');
    expect(after.spec).toEqual({ replicas: 5, image: 'a' });
    expect(after.status).toEqual({ replicas: 1, selector: 'pool=put' });
    expect(after.metadata.generation).toBe(pool.metadata.generation + 1);
    expect(after.metadata.managedFields.map((e: any) => [e.operation, e.subresource ?? ''])).toContainEqual([
      'Update',
      'scale',
    ]);
    const stale = await rawRequest(conn, 'PUT', `${pools}/put/scale`, { ...scale, spec: { replicas: 7 } });
    expect(stale.code).toBe(409);
    expect(json(stale)).toMatchObject({
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on pools.example.com "put": the object has been modified; please apply your changes to the latest version and try again',
    });
    expect((await getPool('put')).spec.replicas).toBe(5);
  });

  it('refuses negative replicas (422), another kind (400), a patch to a non-integer (422), a name mismatch (400)', async () => {
    await createPool('bad');
    const base = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'bad' } };
    const neg = await rawRequest(conn, 'PUT', `${pools}/bad/scale`, { ...base, spec: { replicas: -1 } });
    // The custom resource's own validation refuses it (kube's ValidateScaleSpec), naming the CRD's replicas path.
    expect(json(neg)).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'Pool.example.com "bad" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer',
      details: {
        name: 'bad',
        group: 'example.com',
        kind: 'Pool',
        causes: [
          {
            reason: 'FieldValueInvalid',
            field: '.spec.replicas',
            message: 'Invalid value: -1: should be a non-negative integer',
          },
        ],
      },
    });
    const negMain = await rawRequest(
      conn,
      'PATCH',
      `${pools}/bad`,
      { spec: { replicas: -2 } },
      'application/merge-patch+json',
    );
    expect(json(negMain)).toMatchObject({
      code: 422,
      message: 'Pool.example.com "bad" is invalid: .spec.replicas: Invalid value: -2: should be a non-negative integer',
    });
    expect(
      (await rawRequest(conn, 'PUT', `${pools}/bad/scale`, { ...base, kind: 'Pool', spec: { replicas: 1 } })).code,
    ).toBe(400);
    // kube's patch handler: the patched Scale does not decode, an Invalid "patch" quoting it.
    const three = json(
      await rawRequest(
        conn,
        'PATCH',
        `${pools}/bad/scale`,
        { spec: { replicas: 'three' } },
        'application/merge-patch+json',
      ),
    );
    expect(three).toMatchObject({
      code: 422,
      reason: 'Invalid',
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch' }] },
    });
    expect(three.message).toMatch(
      /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"autoscaling\/v1\\",\\"kind\\":\\"Scale\\",.*\\"spec\\":\{\\"replicas\\":\\"three\\"\}.*": json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32$/,
    );
    expect(
      (
        await rawRequest(conn, 'PUT', `${pools}/bad/scale`, {
          ...base,
          metadata: { name: 'other' },
          spec: { replicas: 1 },
        })
      ).code,
    ).toBe(400);
    expect((await rawRequest(conn, 'PUT', `${pools}/bad/scale`, { ...base, spec: 'four' })).code).toBe(400);
    expect((await getPool('bad')).spec.replicas).toBe(2);
  });

  it('PATCH with a merge or JSON patch; a strategic merge patch is 415 (a custom resource has no patch strategy)', async () => {
    await createPool('patch');
    const merge = await rawRequest(
      conn,
      'PATCH',
      `${pools}/patch/scale`,
      { spec: { replicas: 3 } },
      'application/merge-patch+json',
    );
    expect(json(merge).spec.replicas).toBe(3);
    const jp = await rawRequest(
      conn,
      'PATCH',
      `${pools}/patch/scale`,
      [{ op: 'replace', path: '/spec/replicas', value: 4 }],
      'application/json-patch+json',
    );
    expect(json(jp).spec.replicas).toBe(4);
    const smp = await rawRequest(
      conn,
      'PATCH',
      `${pools}/patch/scale`,
      { spec: { replicas: 6 } },
      'application/strategic-merge-patch+json',
    );
    expect(json(smp)).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
    expect((await getPool('patch')).spec.replicas).toBe(4);
  });

  it('is 404 for a CRD without the scale subresource and for a missing object', async () => {
    await rawRequest(conn, 'POST', '/apis/example.com/v1/namespaces/default/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { size: 1 },
    });
    expect((await rawRequest(conn, 'GET', '/apis/example.com/v1/namespaces/default/widgets/w/scale')).code).toBe(404);
    expect((await rawRequest(conn, 'GET', `${pools}/missing/scale`)).code).toBe(404);
  });
});

describe('server-side apply on /scale', () => {
  const scaleYaml = (name: string, replicas: number) =>
    YAML.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas } });

  it('an apply of replicas another manager applied conflicts', async () => {
    const applied = await rawRequest(
      conn,
      'PATCH',
      `${pools}/ssa?fieldManager=owner`,
      YAML.stringify({
        apiVersion: 'example.com/v1',
        kind: 'Pool',
        metadata: { name: 'ssa' },
        spec: { replicas: 2, image: 'a' },
      }),
      'application/apply-patch+yaml',
    );
    expect(applied.code).toBe(201);
    const conflict = await rawRequest(
      conn,
      'PATCH',
      `${pools}/ssa/scale?fieldManager=autoscaler`,
      scaleYaml('ssa', 4),
      'application/apply-patch+yaml',
    );
    expect(json(conflict)).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "owner": .spec.replicas',
    });
    expect((await getPool('ssa')).spec.replicas).toBe(2);
  });

  // kube-apiserver v1.36.3 answers any apply on a custom resource's /scale that gets past the conflict check with a 500
  // ("failed to convert ... autoscaling/v1, Kind=Scale ... request to convert CR to an invalid group/version"): its
  // field manager converts the Scale with the custom resource's converter. Listed in docs/architecture.md.
  itEmbedded('applies the replicas in an entry of its own; force takes them from another owner', async () => {
    const applied = await rawRequest(
      conn,
      'PATCH',
      `${pools}/ssa-forced?fieldManager=owner`,
      YAML.stringify({
        apiVersion: 'example.com/v1',
        kind: 'Pool',
        metadata: { name: 'ssa-forced' },
        spec: { replicas: 2, image: 'a' },
      }),
      'application/apply-patch+yaml',
    );
    expect(applied.code).toBe(201);
    const forced = await rawRequest(
      conn,
      'PATCH',
      `${pools}/ssa-forced/scale?fieldManager=autoscaler&force=true`,
      scaleYaml('ssa-forced', 4),
      'application/apply-patch+yaml',
    );
    expect(forced.code).toBe(200);
    expect(json(forced).spec.replicas).toBe(4);
    const pool = await getPool('ssa-forced');
    expect(pool.spec).toEqual({ replicas: 4, image: 'a' });
    const entries = pool.metadata.managedFields.map((e: any) => ({
      manager: e.manager,
      operation: e.operation,
      subresource: e.subresource,
      fields: e.fieldsV1,
    }));
    expect(entries).toContainEqual({
      manager: 'autoscaler',
      operation: 'Apply',
      subresource: 'scale',
      fields: { 'f:spec': { 'f:replicas': {} } },
    });
    // The owner lost the replicas: its next apply without them leaves them to the autoscaler.
    const owner = await rawRequest(
      conn,
      'PATCH',
      `${pools}/ssa-forced?fieldManager=owner`,
      YAML.stringify({
        apiVersion: 'example.com/v1',
        kind: 'Pool',
        metadata: { name: 'ssa-forced' },
        spec: { image: 'b' },
      }),
      'application/apply-patch+yaml',
    );
    expect(json(owner).spec).toEqual({ replicas: 4, image: 'b' });
  });

  it('refuses an apply without a fieldManager (422)', async () => {
    await createPool('ssa-fm');
    const r = await rawRequest(
      conn,
      'PATCH',
      `${pools}/ssa-fm/scale`,
      scaleYaml('ssa-fm', 3),
      'application/apply-patch+yaml',
    );
    expect(json(r)).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    });
  });

  // On kube v1.36.3 a 500, as every apply on /scale past the conflict check (above).
  itEmbedded('refuses an apply with a stale resourceVersion (409)', async () => {
    const pool = await createPool('ssa-rv');
    await rawRequest(conn, 'PATCH', `${pools}/ssa-rv/scale`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
    const stale = YAML.stringify({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'ssa-rv', resourceVersion: pool.metadata.resourceVersion },
      spec: { replicas: 9 },
    });
    expect(
      (
        await rawRequest(
          conn,
          'PATCH',
          `${pools}/ssa-rv/scale?fieldManager=m&force=true`,
          stale,
          'application/apply-patch+yaml',
        )
      ).code,
    ).toBe(409);
    expect((await getPool('ssa-rv')).spec.replicas).toBe(3);
  });
});

describe('kubectl scale', () => {
  it('scales a custom resource', async () => {
    await createPool('k1');
    expect(await ok(['scale', 'pool', 'k1', '--replicas=4'])).toContain('pool.example.com/k1 scaled');
    expect((await getPool('k1')).spec.replicas).toBe(4);
  });

  it('--current-replicas: refuses when the replicas differ, scales when they match', async () => {
    await createPool('k2', 3);
    const wrong = await kubectl(['scale', 'pool', 'k2', '--current-replicas=2', '--replicas=5']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('Expected replicas to be 2, was 3');
    expect((await getPool('k2')).spec.replicas).toBe(3);
    await ok(['scale', 'pool', 'k2', '--current-replicas=3', '--replicas=5']);
    expect((await getPool('k2')).spec.replicas).toBe(5);
  });

  it('get --subresource=scale prints Desired and Available; patch --subresource=scale writes the replicas', async () => {
    await createPool('k4');
    const table = await ok(['get', 'pool', 'k4', '--subresource=scale']);
    expect(table.split('\n')[0].split(/\s+/)).toEqual(['NAME', 'DESIRED', 'AVAILABLE', 'AGE']);
    expect(table.split('\n')[1].split(/\s+/).slice(0, 3)).toEqual(['k4', '2', '1']);
    await ok(['patch', 'pool', 'k4', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":7}}']);
    expect((await getPool('k4')).spec.replicas).toBe(7);
  });

  it('--resource-version: a stale one is refused', async () => {
    const pool = await createPool('k3');
    await ok(['scale', 'pool', 'k3', '--replicas=3']);
    const stale = await kubectl([
      'scale',
      'pool',
      'k3',
      `--resource-version=${pool.metadata.resourceVersion}`,
      '--replicas=6',
    ]);
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toContain(`Expected resource version to be ${pool.metadata.resourceVersion}`);
    expect((await getPool('k3')).spec.replicas).toBe(3);
  });
});
