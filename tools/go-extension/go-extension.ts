// Runs the Go extension (test/compat/go-extension, upstream's Go SDK) for tests: built through build.mjs's cache,
// started on a loopback port with a self-signed serving certificate in its --webhook-cert-dir (tls.crt / tls.key, as
// upstream's server reads them), ready once its discovery endpoint answers over HTTPS with that CA.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { ExtensionConfigGVK, HOOKS_API_VERSION, type ExtensionConfig } from '@capi/api';
import { freePort, ManagedProcess } from '@capi/kube-control-plane';
import { generateServerTls, type TlsMaterial } from '@capi/runtime-client';

// assets.mjs is an ES module shared with build.mjs, loaded with require() (Node >= 20.19).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const assets = require('./assets.mjs') as {
  MODULE_DIR: string;
  goExtensionBinary(opts: { build: boolean; log?: (line: string) => void }): Promise<string>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const kube = require('../kube/assets.mjs') as { findGo(): string | undefined };

export const GO_EXTENSION_MODULE_DIR = assets.MODULE_DIR;

/** The go command, or an error saying where it was looked for and what needs it. */
export function requireGo(): string {
  const go = kube.findGo();
  if (!go)
    throw new Error(
      'go not found (looked on PATH, at /usr/local/go/bin/go and CAPI_KUBE_GO): the Go extension tests need Go ' +
        '(export PATH=$PATH:/usr/local/go/bin)',
    );
  return go;
}

/** Builds (or finds in the cache) the Go extension; the first build on a machine takes minutes. */
export function buildGoExtension(log: (line: string) => void = () => undefined): Promise<string> {
  requireGo();
  return assets.goExtensionBinary({ build: true, log });
}

/** Runs `go <args>` in the extension's module (same build flags as build.mjs, so its build cache is shared). */
export function goInModule(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(requireGo(), args, {
    cwd: GO_EXTENSION_MODULE_DIR,
    encoding: 'utf8',
    env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly', ...env },
    maxBuffer: 64 << 20,
  });
}

export interface GoExtensionOptions {
  binary: string;
  /** Folder for the certificate and the log. */
  dir: string;
  /** Loopback port (default: a free one). */
  port?: number;
  tls?: TlsMaterial;
  /** Extra flags (--misbehave, --strict-requests, --update-duration, ...). */
  args?: string[];
}

export interface GoExtension {
  url: string;
  /** Base64 PEM of the CA, for spec.clientConfig.caBundle. */
  caBundle: string;
  port: number;
  tls: TlsMaterial;
  logPath: string;
  log(): string;
  stop(): Promise<void>;
}

/** POSTs a DiscoveryRequest; resolves with the status code and body. */
export function discover(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery`,
      { method: 'POST', ca, timeout: 2000, headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(JSON.stringify({ apiVersion: HOOKS_API_VERSION, kind: 'DiscoveryRequest' }));
  });
}

export async function startGoExtension(opts: GoExtensionOptions): Promise<GoExtension> {
  const port = opts.port ?? (await freePort());
  const tls = opts.tls ?? (await generateServerTls());
  const certDir = join(opts.dir, 'certs');
  mkdirSync(certDir, { recursive: true });
  writeFileSync(join(certDir, 'tls.crt'), tls.cert);
  writeFileSync(join(certDir, 'tls.key'), tls.key, { mode: 0o600 });
  const logPath = join(opts.dir, 'go-extension.log');
  const url = `https://127.0.0.1:${port}`;
  const proc = new ManagedProcess({
    component: 'go-extension',
    binary: opts.binary,
    args: ['--webhook-host=127.0.0.1', `--webhook-port=${port}`, `--webhook-cert-dir=${certDir}`, ...(opts.args ?? [])],
    logPath,
  });
  await proc.start(async () => (await discover(url, tls.ca ?? tls.cert)).status === 200, 30_000);
  return {
    url,
    caBundle: Buffer.from(tls.ca ?? tls.cert).toString('base64'),
    port,
    tls,
    logPath,
    log: () => readFileSync(logPath, 'utf8'),
    stop: () => proc.stop(),
  };
}

/** The ExtensionConfig registering the extension for the Namespaces labelled `namespaceLabel`. */
export function goExtensionConfig(
  name: string,
  ext: Pick<GoExtension, 'url' | 'caBundle'>,
  namespaceLabel: Record<string, string>,
): ExtensionConfig {
  return {
    apiVersion: ExtensionConfigGVK.apiVersion,
    kind: 'ExtensionConfig',
    metadata: { name },
    spec: {
      clientConfig: { url: ext.url, caBundle: ext.caBundle },
      namespaceSelector: { matchLabels: namespaceLabel },
    },
  } as ExtensionConfig;
}
