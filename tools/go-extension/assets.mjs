// Where the Go extension (test/compat/go-extension, a Runtime Extension on upstream's Go SDK) is built, and how: from
// its module with the Go module proxy, into a cache folder keyed by the sigs.k8s.io/cluster-api version it pins and
// a digest of its sources, as tools/kube/assets.mjs does for kube-apiserver and etcd. Idempotent.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { causeOf, findGo, run } from '../kube/assets.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const MODULE_DIR = join(here, '..', '..', 'test', 'compat', 'go-extension');
export const BINARY_NAME = 'go-extension';

/** The folder builds are cached in: CAPI_GO_EXTENSION_CACHE, else ~/.cache/capi-inplace/go-extension. */
export function cacheRoot() {
  return (
    process.env.CAPI_GO_EXTENSION_CACHE ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'capi-inplace', 'go-extension')
  );
}

/** The sigs.k8s.io/cluster-api version go.mod pins (the SDK the extension is built on). */
export function clusterApiVersion() {
  const m = /^\s*sigs\.k8s\.io\/cluster-api (v\S+)/m.exec(readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8'));
  if (!m) throw new Error(`${join(MODULE_DIR, 'go.mod')} pins no sigs.k8s.io/cluster-api version`);
  return m[1];
}

/** go.mod, go.sum and the non-test sources: a change to any of them is a new build. */
function sourceDigest() {
  const h = createHash('sha256');
  const files = readdirSync(MODULE_DIR)
    .filter((f) => f === 'go.mod' || f === 'go.sum' || (f.endsWith('.go') && !f.endsWith('_test.go')))
    .sort();
  for (const f of files)
    h.update(f)
      .update('\0')
      .update(readFileSync(join(MODULE_DIR, f)));
  return h.digest('hex').slice(0, 12);
}

/** The cached binary's path (it may not exist yet). */
export function binaryPath() {
  return join(cacheRoot(), `${BINARY_NAME}-cluster-api-${clusterApiVersion()}-${sourceDigest()}`, BINARY_NAME);
}

/**
 * The built extension's path. With build: true a missing binary is built first (log gets progress lines);
 * otherwise a missing one is an error saying how to build it.
 */
export async function goExtensionBinary({ build = false, log = () => {} } = {}) {
  const out = binaryPath();
  if (existsSync(out)) return out;
  const version = clusterApiVersion();
  if (!build)
    throw new Error(
      `the Go extension (cluster-api ${version}) is not built: run \`node tools/go-extension/build.mjs\``,
    );
  const go = findGo();
  if (!go) {
    const where = process.env.CAPI_KUBE_GO
      ? `CAPI_KUBE_GO=${process.env.CAPI_KUBE_GO}`
      : 'looked on PATH and at /usr/local/go/bin/go';
    throw new Error(`go not found (${where}): it builds the Go extension`);
  }
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  log(`go-extension:build: building the Go extension on sigs.k8s.io/cluster-api ${version} with ${go}`);
  const started = Date.now();
  const heartbeat = setInterval(
    () => log(`go-extension:build: still building (${Math.round((Date.now() - started) / 1000)} s)`),
    30_000,
  );
  try {
    await run(go, ['build', '-trimpath', '-o', tmp, '.'], {
      cwd: MODULE_DIR,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
    });
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new Error(`building the Go extension (cluster-api ${version}) failed: ${causeOf(e.message)}`);
  } finally {
    clearInterval(heartbeat);
  }
  renameSync(tmp, out);
  writeFileSync(join(dirname(out), 'BUILT'), `sigs.k8s.io/cluster-api@${version} built ${new Date().toISOString()}\n`);
  log(`go-extension:build: built in ${Math.round((Date.now() - started) / 1000)} s: ${out}`);
  return out;
}
