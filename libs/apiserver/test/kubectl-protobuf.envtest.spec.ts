// kubectl's typed `create` subcommands send protobuf (and ask for it back): every one for a served kind, end to end.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateServingCerts } from '../src/server/tls';
import { kubectlSuite } from './support/kubectl';
import { waitFor } from './support/fixtures';

jest.setTimeout(60000);

const kubectl = kubectlSuite('apiserver-kubectl-pb-');
const { suite } = kubectl;
const dirFile = (name: string) => join(suite.dir, name);

/** Go's typed decode turns an absent struct into an empty one (`spec: {}`); the JSON path has no such step. */
function dropEmptyObjects(v: any): any {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const d = dropEmptyObjects(x);
    if (!(typeof d === 'object' && d !== null && !Array.isArray(d) && Object.keys(d).length === 0)) out[k] = d;
  }
  return out;
}

/**
 * Runs `kubectl create ... -o json` and returns what kubectl decoded from the server's protobuf answer, after checking
 * it is the object `kubectl get -o json` (the JSON path) reads back.
 */
async function createAndReadBack(args: string[], getArgs: string[]): Promise<any> {
  const created = JSON.parse(await kubectl.ok(['create', ...args, '-o', 'json']));
  const got = JSON.parse(await kubectl.ok(['get', ...getArgs, '-o', 'json']));
  expect(dropEmptyObjects(created)).toEqual(dropEmptyObjects(got));
  return got;
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

describe('kubectl create (protobuf requests and responses)', () => {
  it('the requests really are protobuf both ways', async () => {
    const r = await kubectl.run(['create', 'namespace', 'pb-probe', '-v=8']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /Content-Type: application\/vnd\.kubernetes\.protobuf[\s\S]*Response Status: 201[\s\S]*Content-Type: application\/vnd\.kubernetes\.protobuf/,
    );
  });

  it('namespace', async () => {
    const ns = await createAndReadBack(['namespace', 'pb'], ['namespace', 'pb']);
    expect(ns).toMatchObject({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'pb', uid: expect.any(String), creationTimestamp: expect.any(String) },
    });
  });

  it('configmap --from-literal and --from-file (binary file → binaryData)', async () => {
    const bin = Buffer.from([0, 1, 2, 0xfe, 0xff]);
    writeFileSync(dirFile('blob'), bin);
    writeFileSync(dirFile('text.conf'), 'key = value\n');
    const cm = await createAndReadBack(
      [
        'configmap',
        'cm',
        '-n',
        'pb',
        '--from-literal=a=b',
        '--from-literal=empty=',
        `--from-file=${dirFile('text.conf')}`,
        `--from-file=blob=${dirFile('blob')}`,
      ],
      ['configmap', 'cm', '-n', 'pb'],
    );
    expect(cm.data).toEqual({ a: 'b', empty: '', 'text.conf': 'key = value\n' });
    expect(cm.binaryData).toEqual({ blob: b64(bin) });
  });

  it('secret generic', async () => {
    const s = await createAndReadBack(
      ['secret', 'generic', 'gen', '-n', 'pb', '--from-literal=password=s3cr3t', '--type=Opaque'],
      ['secret', 'gen', '-n', 'pb'],
    );
    expect(s).toMatchObject({ type: 'Opaque', data: { password: b64('s3cr3t') } });
  });

  it('secret tls', async () => {
    const certs = await generateServingCerts('127.0.0.1');
    writeFileSync(dirFile('tls.crt'), certs.cert);
    writeFileSync(dirFile('tls.key'), certs.key);
    const s = await createAndReadBack(
      ['secret', 'tls', 'tls', '-n', 'pb', `--cert=${dirFile('tls.crt')}`, `--key=${dirFile('tls.key')}`],
      ['secret', 'tls', '-n', 'pb'],
    );
    expect(s.type).toBe('kubernetes.io/tls');
    expect(Buffer.from(s.data['tls.crt'], 'base64').toString()).toBe(certs.cert);
    expect(Buffer.from(s.data['tls.key'], 'base64').toString()).toBe(certs.key);
  });

  it('secret docker-registry', async () => {
    const s = await createAndReadBack(
      [
        'secret',
        'docker-registry',
        'reg',
        '-n',
        'pb',
        '--docker-server=registry.example.com',
        '--docker-username=u',
        '--docker-password=p',
        '--docker-email=u@example.com',
      ],
      ['secret', 'reg', '-n', 'pb'],
    );
    expect(s.type).toBe('kubernetes.io/dockerconfigjson');
    const cfg = JSON.parse(Buffer.from(s.data['.dockerconfigjson'], 'base64').toString());
    expect(cfg.auths['registry.example.com']).toMatchObject({
      username: 'u',
      password: 'p',
      email: 'u@example.com',
      auth: b64('u:p'),
    });
  });

  it('--dry-run=server answers the object without storing it', async () => {
    const dry = JSON.parse(
      await kubectl.ok([
        'create',
        'configmap',
        'dry',
        '-n',
        'pb',
        '--from-literal=x=y',
        '--dry-run=server',
        '-o',
        'json',
      ]),
    );
    expect(dry).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'dry', namespace: 'pb' }, data: { x: 'y' } });
    const r = await kubectl.run(['get', 'configmap', 'dry', '-n', 'pb']);
    expect(r.stderr).toContain('NotFound');
  });

  it('typed readers decode protobuf answers: describe (a ConfigMap with its EventList, a Secret), cordon a Node', async () => {
    const cm = JSON.parse(await kubectl.ok(['get', 'configmap', 'cm', '-n', 'pb', '-o', 'json']));
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'cm-seen', namespace: 'pb' },
      reason: 'Noticed',
      message: 'the configmap was seen',
      type: 'Warning',
      count: 2,
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', namespace: 'pb', uid: cm.metadata.uid },
      source: { component: 'tester' },
      firstTimestamp: new Date(Date.now() - 120_000).toISOString(),
      lastTimestamp: new Date().toISOString(),
    };
    await kubectl.ok(['apply', '-f', '-'], JSON.stringify(event));
    const described = await kubectl.ok(['describe', 'configmap', 'cm', '-n', 'pb']);
    expect(described).toMatch(/^a:\n----\nb$/m);
    expect(described).toMatch(/Warning\s+Noticed\s+\S+ \(x2 over \S+\)\s+tester\s+the configmap was seen/);
    expect(await kubectl.ok(['describe', 'secret', 'gen', '-n', 'pb'])).toMatch(
      /Type:\s+Opaque[\s\S]*password:\s+6 bytes/,
    );

    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'pb-node', labels: { role: 'test' } },
      spec: {
        providerID: 'test://n',
        podCIDRs: ['10.0.0.0/24'],
        taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }],
      },
    };
    await kubectl.ok(['apply', '-f', '-'], JSON.stringify(node));
    expect(await kubectl.ok(['cordon', 'pb-node'])).toContain('node/pb-node cordoned'); // GET as protobuf, then a patch computed from it
    const cordoned = JSON.parse(await kubectl.ok(['get', 'node', 'pb-node', '-o', 'json']));
    // kube's admission taints a new Node not-ready; podCIDR is podCIDRs[0] (the v1 NodeSpec conversion).
    const notReady = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
    expect(cordoned.spec).toEqual({
      ...node.spec,
      podCIDR: '10.0.0.0/24',
      taints: [...node.spec.taints, notReady],
      unschedulable: true,
    });
    expect(await kubectl.ok(['uncordon', 'pb-node'])).toContain('node/pb-node uncordoned');
  });

  it('kubectl events --watch: a typed list and a protobuf watch stream', async () => {
    const watch = spawn('kubectl', ['--kubeconfig', suite.kubeconfig, 'events', '-n', 'pb', '--watch', '-v=8'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let log = '';
    watch.stdout.on('data', (d) => (out += d));
    watch.stderr.on('data', (d) => (log += d));
    try {
      // The list first (the event of the describe test), then the watch, answered as a protobuf stream.
      await waitFor(() => /Warning\s+Noticed\s+ConfigMap\/cm/.test(out), 10000, 'the listed event');
      await waitFor(
        () => /Content-Type: application\/vnd\.kubernetes\.protobuf;stream=watch/.test(log),
        10000,
        'the protobuf watch',
      );
      const event = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'watched', namespace: 'pb' },
        reason: 'Streamed',
        message: 'came through the watch',
        type: 'Normal',
        // kube's Event validation: the involved object's namespace is the Event's (or empty in "default").
        involvedObject: { apiVersion: 'v1', kind: 'Namespace', name: 'pb', namespace: 'pb' },
        count: 1,
        firstTimestamp: new Date().toISOString(),
        lastTimestamp: new Date().toISOString(),
      };
      await kubectl.ok(['apply', '-f', '-'], JSON.stringify(event));
      await waitFor(
        () => /Normal\s+Streamed\s+Namespace\/pb\s+came through the watch/.test(out),
        10000,
        'the watched event',
      );
    } finally {
      watch.kill();
    }
  });

  it('errors come back as protobuf Status that kubectl reads', async () => {
    const dup = await kubectl.run(['create', 'namespace', 'pb']);
    expect(dup.code).not.toBe(0);
    expect(dup.stderr).toContain('Error from server (AlreadyExists): namespaces "pb" already exists');
    const bad = await kubectl.run(['create', 'configmap', 'Bad_Name', '-n', 'pb']);
    expect(bad.stderr).toMatch(/ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value/);
    const noNs = await kubectl.run(['create', 'secret', 'generic', 'x', '-n', 'missing', '--from-literal=a=b']);
    expect(noNs.stderr).toContain('namespaces "missing" not found');
  });
});
