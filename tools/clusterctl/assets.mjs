// Where clusterctl (sigs.k8s.io/cluster-api/cmd/clusterctl, upstream's provider installer) is built, and how: from the
// wrapper module in module/ with the Go module proxy, into a cache folder keyed by the release it pins and a digest of
// go.mod/go.sum, as tools/kube/assets.mjs does for kube-apiserver and etcd. Idempotent.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { causeOf, findGo, run } from '../kube/assets.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const MODULE_DIR = join(here, 'module');
export const PKG = 'sigs.k8s.io/cluster-api/cmd/clusterctl';

/** The folder builds are cached in: CAPI_CLUSTERCTL_CACHE, else ~/.cache/capi-inplace/clusterctl. */
export function cacheRoot() {
  return (
    process.env.CAPI_CLUSTERCTL_CACHE ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'capi-inplace', 'clusterctl')
  );
}

/** The sigs.k8s.io/cluster-api release module/go.mod pins: the clusterctl version built. */
export function clusterctlVersion() {
  const m = /^\s*sigs\.k8s\.io\/cluster-api (v\S+)/m.exec(readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8'));
  if (!m) throw new Error(`${join(MODULE_DIR, 'go.mod')} pins no sigs.k8s.io/cluster-api version`);
  return m[1];
}

/**
 * What upstream's Makefile stamps into a release build (hack/scripts/release/version.sh): without gitVersion
 * clusterctl reports itself as a dev build and resolves provider versions differently.
 */
export function ldflags(version) {
  const m = /^v(\d+)\.(\d+)\./.exec(version);
  if (!m) throw new Error(`clusterctl version ${version} is not a release version`);
  return [
    `gitVersion=${version}`,
    `gitMajor=${m[1]}`,
    `gitMinor=${m[2]}`,
    'gitTreeState=clean',
    'buildDate=1970-01-01T00:00:00Z',
  ]
    .flatMap((kv) => ['-X', `sigs.k8s.io/cluster-api/version.${kv}`])
    .concat(['-s', '-w'])
    .join(' ');
}

function moduleDigest() {
  const h = createHash('sha256');
  for (const f of ['go.mod', 'go.sum']) h.update(readFileSync(join(MODULE_DIR, f)));
  return h.digest('hex').slice(0, 12);
}

/** The cached binary's path (it may not exist yet). */
export function binaryPath() {
  return join(cacheRoot(), `clusterctl-${clusterctlVersion()}-${moduleDigest()}`, 'clusterctl');
}

/**
 * The built clusterctl's path. With build: true a missing binary is built first (log gets progress lines);
 * otherwise a missing one is an error saying how to build it.
 */
export async function clusterctlBinary({ build = false, log = () => {} } = {}) {
  const out = binaryPath();
  if (existsSync(out)) return out;
  const version = clusterctlVersion();
  if (!build) throw new Error(`clusterctl ${version} is not built: run \`node tools/clusterctl/build.mjs\``);
  const go = findGo();
  if (!go) {
    const where = process.env.CAPI_KUBE_GO
      ? `CAPI_KUBE_GO=${process.env.CAPI_KUBE_GO}`
      : 'looked on PATH and at /usr/local/go/bin/go';
    throw new Error(`go not found (${where}): it builds clusterctl`);
  }
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  log(`clusterctl:build: building clusterctl ${version} (${PKG}) with ${go}`);
  const started = Date.now();
  const heartbeat = setInterval(
    () => log(`clusterctl:build: still building (${Math.round((Date.now() - started) / 1000)} s)`),
    30_000,
  );
  try {
    await run(go, ['build', '-trimpath', '-o', tmp, '-ldflags', ldflags(version), PKG], {
      cwd: MODULE_DIR,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
    });
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new Error(`building clusterctl ${version} failed: ${causeOf(e.message)}`);
  } finally {
    clearInterval(heartbeat);
  }
  renameSync(tmp, out);
  writeFileSync(join(dirname(out), 'BUILT'), `${PKG}@${version} built ${new Date().toISOString()}\n`);
  log(`clusterctl:build: built in ${Math.round((Date.now() - started) / 1000)} s: ${out}`);
  return out;
}
