// `npm run kube:up -- [--dir DIR] [--port PORT]`: a real management cluster on loopback for the manager, the demo
// and the bench (see management-cluster.ts), in the foreground until Ctrl-C, which stops etcd and kube-apiserver.
// Each start is a fresh cluster (the etcd data of the previous one is removed); logs, certificates and kubeconfigs
// stay in DIR. Exit codes: 0 after Ctrl-C, 1 start-up failure or a component that died, 2 bad arguments.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { kubeAssetsFolder, startManagementCluster, type ManagementCluster } from './management-cluster';

export const DEFAULT_DIR = '.capi-kube';
export const DEFAULT_PORT = 6443;

const USAGE = `usage: npm run kube:up -- [--dir DIR] [--port PORT]
Starts etcd + kube-apiserver on 127.0.0.1 (a fresh cluster, data and logs in DIR, default ${DEFAULT_DIR}), applies the
CRDs and RBAC from deploy/ with kubectl, issues the manager's ServiceAccount token with kubectl create token and writes
DIR/admin.kubeconfig and DIR/manager.kubeconfig. Stays in the foreground; Ctrl-C stops etcd and kube-apiserver.
  --dir DIR    data folder (default ${DEFAULT_DIR})
  --port PORT  kube-apiserver's port on 127.0.0.1 (default ${DEFAULT_PORT})`;

class UpError extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

function parse(argv: string[]): { dir: string; port: number } | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: { dir: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (e) {
    throw new UpError(`${(e as Error).message} (see --help)`, 2);
  }
  if (values.help) return undefined;
  const port = Number(values.port ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new UpError(`--port must be a port number (1-65535), got ${JSON.stringify(values.port)}`, 2);
  if (values.dir === '') throw new UpError('--dir must not be empty', 2);
  return { dir: resolve(values.dir ?? DEFAULT_DIR), port };
}

/** Rejects when 127.0.0.1:port cannot be bound, before anything is started. */
function checkPortFree(port: number): Promise<void> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', (e: NodeJS.ErrnoException) =>
      fail(new UpError(`port ${port} on 127.0.0.1 is not free (${e.code ?? e.message}): pass --port with a free one`)),
    );
    srv.listen(port, '127.0.0.1', () => srv.close(() => ok()));
  });
}

/** One kube:up per folder: a live pid in DIR/kube-up.pid is an error; the previous cluster's etcd data is removed. */
function claimDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pidFile = join(dir, 'kube-up.pid');
  const previous = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : undefined;
  if (previous && previous !== process.pid && isAlive(previous))
    throw new UpError(`${dir} is in use by kube:up (pid ${previous}): stop it, or pass another --dir`);
  for (const entry of readdirSync(dir))
    if (/^etcd-\d+$/.test(entry)) rmSync(join(dir, entry), { recursive: true, force: true });
  writeFileSync(pidFile, String(process.pid));
  return pidFile;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A path as the user would type it from the current directory. */
const shown = (p: string) => {
  const rel = relative(process.cwd(), p);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
};

export function followUp(
  cluster: Pick<ManagementCluster, 'url' | 'adminKubeconfig' | 'managerKubeconfig'>,
  dir: string,
): string {
  const admin = shown(cluster.adminKubeconfig);
  const manager = shown(cluster.managerKubeconfig);
  return [
    `management cluster ready: kube-apiserver at ${cluster.url} (etcd, certificates and logs in ${shown(dir)})`,
    `  admin kubeconfig:   ${admin}`,
    `  manager kubeconfig: ${manager} (ServiceAccount capi-system/capi-manager, RBAC from deploy/rbac)`,
    'In other terminals:',
    `  npm start -- --kubeconfig ${manager} --embedded-provider --feature-gates=RuntimeSDK=true,InPlaceUpdates=true`,
    `  npm run demo -- --kubeconfig ${admin}`,
    `  kubectl --kubeconfig ${admin} get clusters,machines -A`,
    'Ctrl-C stops etcd and kube-apiserver.',
    '',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const args = parse(argv);
  if (!args) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  await checkPortFree(args.port);
  let assetsDir: string;
  try {
    assetsDir = await kubeAssetsFolder();
  } catch (e) {
    throw new UpError((e as Error).message);
  }
  const pidFile = claimDir(args.dir);
  let cluster: ManagementCluster | undefined;
  let stopping = false;
  const stop = async (code: number, message?: string) => {
    if (stopping) return;
    stopping = true;
    if (message) process.stderr.write(`${message}\n`);
    await cluster?.stop().catch(() => undefined);
    rmSync(pidFile, { force: true });
    if (code === 0) process.stdout.write('kube:up: etcd and kube-apiserver stopped\n');
    process.exit(code);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      process.stdout.write(`\n${sig}: stopping kube-apiserver and etcd\n`);
      void stop(0);
    });
  }
  try {
    cluster = await startManagementCluster({
      dir: args.dir,
      port: args.port,
      assetsDir,
      log: (l) => process.stdout.write(`kube:up: ${l}\n`),
    });
  } catch (e) {
    rmSync(pidFile, { force: true });
    throw new UpError((e as Error).message);
  }
  process.stdout.write(followUp(cluster, args.dir));
  // A component that dies is reported at once, not when someone next runs kubectl.
  const { controlPlane } = cluster;
  setInterval(() => {
    const dead = [controlPlane.apiServer.process, ...controlPlane.etcd.members.map((m) => m.process)].find(
      (p) => p && !p.alive,
    );
    if (dead) void stop(1, `error: ${dead.spec.component} exited; log: ${dead.spec.logPath}`);
  }, 1000);
  await new Promise(() => undefined); // until a signal
  return 0;
}

/** A component's error carries its log's last lines: the first line and the last log line, on one line. */
export function oneLine(message: string): string {
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.length > 1 ? `${lines[0]} (last log line: ${lines.at(-1)})` : (lines[0] ?? '');
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`error: ${oneLine(e instanceof Error ? e.message : String(e))}\n`);
      process.exit(e instanceof UpError ? e.code : 1);
    },
  );
}
