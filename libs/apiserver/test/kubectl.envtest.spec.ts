// Drives the server with the real kubectl binary.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { waitFor, widgetCrd } from './support/fixtures';
import { kubectlSuite } from './support/kubectl';

jest.setTimeout(30000);

const children: ChildProcess[] = [];
afterAll(() => children.forEach((c) => c.kill()));

const { suite, kubectl, ok } = kubectlSuite('apiserver-kubectl-');
const dirFile = (name: string) => join(suite.dir, name);

const widgetYaml = (spec: Record<string, unknown>, name = 'k1') =>
  YAML.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec });

describe('kubectl', () => {
  it('apply --server-side of a CRD and a custom object; get -o yaml round-trip', async () => {
    expect(await ok(['apply', '--server-side', '-f', '-'], YAML.stringify(widgetCrd))).toContain('serverside-applied');
    expect(await ok(['apply', '--server-side', '-f', '-'], widgetYaml({ size: 1 }))).toContain(
      'widget.example.com/k1 serverside-applied',
    );
    const got = YAML.parse(await ok(['get', 'widget', 'k1', '-o', 'yaml']));
    expect(got).toMatchObject({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'k1', namespace: 'default', generation: 1 },
      spec: { size: 1 },
    });
    // Round trip: what kubectl printed can be written back unchanged.
    writeFileSync(dirFile('k1.yaml'), YAML.stringify(got));
    await ok(['replace', '-f', dirFile('k1.yaml')]);
    const again = YAML.parse(await ok(['get', 'widget', 'k1', '-o', 'yaml', '--show-managed-fields']));
    expect(again.spec).toEqual(got.spec);
    expect(again.metadata.generation).toBe(1);
    expect(again.metadata.managedFields.map((m: any) => m.manager)).toContain('kubectl');
    // Human output is a server-side Table with the CRD's printer columns.
    // No Age column: the CRD declares columns, and only a CRD without any gets the default Age (like kube).
    expect(await ok(['get', 'wd'])).toMatch(/^NAME\s+SIZE\s+PHASE\s*\nk1\s+1\s*$/);
  });

  // Server-side apply converts the intent to the schema's typed value first: a field the schema does not declare fails
  // there, whatever --validate (fieldValidation) says, and kube answers with a 500.
  it.each([['strict'], ['warn']])(
    'kubectl apply --server-side --validate=%s refuses an unknown field (not declared in the schema)',
    async (validate) => {
      const r = await kubectl(
        ['apply', '--server-side', `--validate=${validate}`, '-f', '-'],
        widgetYaml({ size: 1, colour: 'typo' }, 'typo'),
      );
      expect(r.code).not.toBe(0);
      expect(r.stderr).toBe(
        'Error from server: failed to create typed patch object (default/typo; example.com/v1, Kind=Widget): .spec.colour: field not declared in schema\n',
      );
      expect((await kubectl(['get', 'widget', 'typo'])).code).not.toBe(0);
    },
  );

  it('kubectl create --validate=strict refuses an unknown field; --validate=warn stores the object without it and prints the server warning', async () => {
    const strict = await kubectl(['create', '-f', '-'], widgetYaml({ size: 1, colour: 'typo' }, 'strict'));
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('strict decoding error: unknown field "spec.colour"');
    const r = await kubectl(
      ['create', '--validate=warn', '-f', '-'],
      widgetYaml({ size: 2, colour: 'typo' }, 'warned'),
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Warning: unknown field "spec.colour"');
    const got = YAML.parse(await ok(['get', 'widget', 'warned', '-o', 'yaml']));
    expect(got.spec).toEqual({ size: 2, color: 'blue' }); // colour pruned, color defaulted by the schema
  });

  it('get -w sees later changes', async () => {
    const watch = spawn(
      'kubectl',
      ['--kubeconfig', suite.kubeconfig, 'get', 'widgets', '-w', '--output-watch-events', '-o', 'json'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(watch);
    let out = '';
    watch.stdout.on('data', (d) => (out += d));
    await waitFor(() => out.includes('"ADDED"'), 10000, 'initial ADDED');
    await ok(['patch', 'widget', 'k1', '--type', 'merge', '-p', '{"spec":{"size":5}}']);
    await waitFor(() => out.includes('"MODIFIED"') && /"size":\s*5/.test(out), 10000, 'MODIFIED event');
    watch.kill();
  });

  it('a second field manager conflicts; --force-conflicts takes over', async () => {
    const r = await kubectl(['apply', '--server-side', '--field-manager', 'other', '-f', '-'], widgetYaml({ size: 9 }));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/conflict/i);
    expect(r.stderr).toContain('.spec.size');
    await ok(
      ['apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', '-'],
      widgetYaml({ size: 9 }),
    );
    const got = YAML.parse(await ok(['get', 'widget', 'k1', '-o', 'yaml', '--show-managed-fields']));
    expect(got.spec.size).toBe(9);
    const other = got.metadata.managedFields.find((m: any) => m.manager === 'other');
    expect(JSON.stringify(other.fieldsV1)).toContain('f:size');
  });

  it('patch --type merge and --type json, and --subresource=status', async () => {
    await ok(['patch', 'widget', 'k1', '--type', 'merge', '-p', '{"metadata":{"labels":{"l":"v"}}}']);
    await ok(['patch', 'widget', 'k1', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/size","value":3}]']);
    await ok([
      'patch',
      'widget',
      'k1',
      '--subresource=status',
      '--type',
      'merge',
      '-p',
      '{"status":{"phase":"Ready"}}',
    ]);
    const got = YAML.parse(await ok(['get', 'widget', 'k1', '-o', 'yaml']));
    expect(got.metadata.labels).toEqual({ l: 'v' });
    expect(got.spec.size).toBe(3);
    expect(got.status).toEqual({ phase: 'Ready' });
  });

  it('delete waits on finalizers', async () => {
    await ok(
      ['apply', '--server-side', '-f', '-'],
      YAML.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'held', namespace: 'default', finalizers: ['example.com/hold'] },
      }),
    );
    const del = kubectl(['delete', 'configmap', 'held', '--timeout=20s']);
    let finished = false;
    void del.then(() => (finished = true));
    const cm = await waitFor(
      async () => {
        const o = YAML.parse(await ok(['get', 'configmap', 'held', '-o', 'yaml']));
        return o.metadata.deletionTimestamp ? o : undefined;
      },
      10000,
      'deletionTimestamp',
    );
    expect(cm.metadata.finalizers).toEqual(['example.com/hold']);
    expect(finished).toBe(false);
    await ok(['patch', 'configmap', 'held', '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    const r = await del;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('configmap "held" deleted');
    const after = await kubectl(['get', 'configmap', 'held']);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain('NotFound');
  });
});
