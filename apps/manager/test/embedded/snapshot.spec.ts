// The embedded API server's data in the manager's layout (.capi/apiserver.sqlite, .capi/apiserver/): `npm run snapshot`
// saves it while the manager runs and restores it into another data dir; a damaged or emptied database stops the
// manager's start-up with one error line.
import { mkdtempSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@capi/controller-runtime';
import { ApiServerEmbeddedEnvironment, embeddedPaths } from '@capi/manager';
import { runSnapshot } from '../../src/snapshot';
import { finish, logRecords, runManager } from '../support/manager-process';

jest.setTimeout(60_000);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'manager-snapshot-'));
  dirs.push(d);
  return d;
};

function clientFor(kubeconfig: string): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return new KubeClient(kc);
}

const credentials = (kubeconfig: string) => {
  const kc = YAML.parse(kubeconfig);
  return { token: kc.users[0].user.token, ca: kc.clusters[0].cluster['certificate-authority-data'] };
};

async function configMapNames(client: KubeClient): Promise<string[]> {
  return (await client.list('v1', 'ConfigMap', { namespace: 'default' })).items.map((i) => i.metadata.name!).sort();
}

it('npm run snapshot saves while serving; restored into a new data dir it has the same objects, token and CA', async () => {
  const dataDir = newDir();
  const env = new ApiServerEmbeddedEnvironment({ dataDir });
  const started = await env.start();
  const client = clientFor(started.kubeconfig);
  const file = join(newDir(), 'snap.db');
  let names: string[];
  try {
    for (const name of ['a', 'b', 'c'])
      await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
    names = await configMapNames(client);
    expect(runSnapshot(['save', file, '--data-dir', dataDir])).toMatch(
      new RegExp(`^saved ${file}: revision \\d+, \\d+ objects, token and serving-certs.json`),
    );
    expect(() => runSnapshot(['restore', file, '--data-dir', dataDir])).toThrow(
      `database ${embeddedPaths(dataDir).database} is in use`,
    );
  } finally {
    client.close();
    await env.stop();
  }

  const target = newDir();
  expect(runSnapshot(['restore', file, `--data-dir=${target}`])).toContain('wrote token and serving-certs.json');
  const restored = new ApiServerEmbeddedEnvironment({ dataDir: target });
  const again = await restored.start();
  const client2 = clientFor(again.kubeconfig);
  try {
    expect(credentials(again.kubeconfig)).toEqual(credentials(started.kubeconfig));
    expect(await configMapNames(client2)).toEqual(names);
  } finally {
    client2.close();
    await restored.stop();
  }
  expect(() => runSnapshot(['load', file])).toThrow('usage: npm run snapshot -- save|restore <file>');
});

it('a database truncated to 0 bytes stops start-up: exit 1, one error line naming it and the restore command', async () => {
  const dataDir = newDir();
  const env = new ApiServerEmbeddedEnvironment({ dataDir });
  await env.start();
  await env.stop();
  const db = embeddedPaths(dataDir).database;
  truncateSync(db, 0);
  const r = await finish(
    runManager([
      `--data-dir=${dataDir}`,
      '--controllers=',
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
    ]),
  );
  expect(r.code).toBe(1);
  const errors = r.stderr.split('\n').filter((l) => !l.startsWith('{') && l.trim() !== '');
  expect(errors).toEqual([
    expect.stringMatching(
      `^error: database ${db} is empty \\(0 bytes\\) but .* show a previous run; restore a snapshot with ` +
        `\`npm run snapshot -- restore <file> --data-dir ${dataDir}\``,
    ),
  ]);
  const exiting = logRecords(r.stderr).find((l) => l.msg === 'manager exiting');
  expect(exiting).toBeDefined();
  expect(exiting).not.toHaveProperty('stack');
});
