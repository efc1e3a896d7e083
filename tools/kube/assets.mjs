// Where the kube target's binaries live, and how they are built. Shared by build.mjs (npm run kube:build) and the
// envtest library (which calls it with build: false and says how to build when something is missing).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The components, each built from its wrapper module in modules/<name>. */
export const COMPONENTS = [
  {
    name: 'kube-apiserver',
    version: 'v1.36.3',
    pkg: 'k8s.io/kubernetes/cmd/kube-apiserver',
    // What `make` stamps into a release build, so /version and kubectl's skew check see v1.36.3.
    ldflags: (v) => {
      const [major, minor] = v.slice(1).split('.');
      return [
        'gitVersion=' + v,
        'gitMajor=' + major,
        'gitMinor=' + minor,
        'gitTreeState=clean',
        'buildDate=1970-01-01T00:00:00Z',
      ]
        .flatMap((kv) => ['-X', `k8s.io/component-base/version.${kv}`])
        .join(' ');
    },
  },
  { name: 'etcd', version: 'v3.6.14', pkg: 'go.etcd.io/etcd/server/v3', ldflags: () => '' },
];

/** The folder builds are cached in: CAPI_KUBE_CACHE, else ~/.cache/capi-inplace/kube (shared by clones on a machine). */
export function cacheRoot() {
  return (
    process.env.CAPI_KUBE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'capi-inplace', 'kube')
  );
}

function moduleDigest(name) {
  const dir = join(here, 'modules', name);
  const h = createHash('sha256');
  for (const f of ['go.mod', 'go.sum']) h.update(readFileSync(join(dir, f)));
  return h.digest('hex').slice(0, 12);
}

/** The cached binary's path for a component (it may not exist yet). */
export function binaryPath(c) {
  return join(cacheRoot(), `${c.name}-${c.version}-${moduleDigest(c.name)}`, c.name);
}

/** CAPI_KUBE_GO names the go binary to use; else go on PATH, else the Go machines' /usr/local/go. */
export function findGo() {
  const candidates = process.env.CAPI_KUBE_GO ? [process.env.CAPI_KUBE_GO] : ['go', '/usr/local/go/bin/go'];
  for (const candidate of candidates) {
    const r = spawnSync(candidate, ['version'], { encoding: 'utf8' });
    if (r.status === 0) return candidate;
  }
  return undefined;
}

/** Runs a command; rejects with its combined output as the message (and `code`) when it exits non-zero. */
export function run(cmd, args, opts) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(Object.assign(new Error(out.trim()), { code }))));
  });
}

/** The line of go's output that names the cause: not its progress ("go: downloading ..."), the last of the rest. */
export function causeOf(output) {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^go: (downloading|finding|extracting) /.test(l));
  return lines.at(-1) ?? 'no output';
}

async function build(c, go, log) {
  const out = binaryPath(c);
  const dir = dirname(out);
  mkdirSync(dir, { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  log(`kube:build: building ${c.name} ${c.version} (${c.pkg}) with ${go}; a first build takes several minutes`);
  const started = Date.now();
  const heartbeat = setInterval(
    () => log(`kube:build: ${c.name} still building (${Math.round((Date.now() - started) / 1000)} s)`),
    30_000,
  );
  try {
    await run(go, ['build', '-trimpath', '-o', tmp, '-ldflags', c.ldflags(c.version), c.pkg], {
      cwd: join(here, 'modules', c.name),
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
    });
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new Error(`building ${c.name} ${c.version} failed: ${causeOf(e.message)}`);
  } finally {
    clearInterval(heartbeat);
  }
  renameSync(tmp, out);
  writeFileSync(join(dir, 'BUILT'), `${c.pkg}@${c.version} built ${new Date().toISOString()}\n`);
  log(`kube:build: ${c.name} ${c.version} built in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * The folder holding kube-apiserver and etcd, as KUBEBUILDER_ASSETS would name it. With build: true, missing
 * binaries are built first; otherwise a missing one is an error saying how to build it.
 */
export async function kubeAssets({ build: mayBuild = false, log = () => {} } = {}) {
  if (process.env.KUBEBUILDER_ASSETS) {
    const dir = process.env.KUBEBUILDER_ASSETS;
    for (const c of COMPONENTS) {
      if (!existsSync(join(dir, c.name))) throw new Error(`KUBEBUILDER_ASSETS=${dir} has no ${c.name}`);
    }
    return dir;
  }
  const missing = COMPONENTS.filter((c) => !existsSync(binaryPath(c)));
  if (missing.length && !mayBuild) {
    throw new Error(
      `${missing.map((c) => `${c.name} ${c.version}`).join(' and ')} not built: run \`npm run kube:build\``,
    );
  }
  if (missing.length) {
    const go = findGo();
    if (!go) {
      const where = process.env.CAPI_KUBE_GO
        ? `CAPI_KUBE_GO=${process.env.CAPI_KUBE_GO}`
        : 'looked on PATH and at /usr/local/go/bin/go';
      throw new Error(`go not found (${where}): it builds kube-apiserver and etcd`);
    }
    for (const c of missing) await build(c, go, log);
  }
  // One folder with both, as KUBEBUILDER_ASSETS: links to the versioned builds.
  const assets = join(cacheRoot(), 'assets-' + COMPONENTS.map((c) => binaryPath(c).split('/').at(-2)).join('_'));
  mkdirSync(assets, { recursive: true });
  for (const c of COMPONENTS) {
    const link = join(assets, c.name);
    if (!existsSync(link)) {
      const tmp = `${link}.tmp-${process.pid}`;
      rmSync(tmp, { force: true });
      symlinkSync(binaryPath(c), tmp);
      renameSync(tmp, link);
    }
  }
  return assets;
}
