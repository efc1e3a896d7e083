// Runs the real kubectl binary against a kubeconfig.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './server';

export interface KubectlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The kubeconfig path, or a getter for suites that only know it after beforeAll. */
export function kubectlRunner(kubeconfig: string | (() => string)) {
  const path = typeof kubeconfig === 'string' ? () => kubeconfig : kubeconfig;
  const run = (args: string[], stdin?: string): Promise<KubectlRun> =>
    new Promise((resolve, reject) => {
      const p = spawn('kubectl', ['--kubeconfig', path(), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('error', reject);
      p.on('close', (code) => resolve({ code, stdout, stderr }));
      p.stdin.end(stdin ?? '');
    });
  /** stdout of a run that must succeed. */
  const ok = async (args: string[], stdin?: string): Promise<string> => {
    const r = await run(args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    return r.stdout;
  };
  return { run, kubectl: run, ok };
}

/** kubectl's human table as rows of cells (columns are padded by at least 3 spaces). */
export const tableRows = (out: string): string[][] =>
  out
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{3,}/));

/**
 * The suite's API server (embedded or kube, by ENVTEST_TARGET; no CRDs unless given) for a kubectl suite, started in
 * beforeAll and stopped in afterAll, with its kubeconfig and kubectl's discovery cache in a temporary dir
 * (`suite.dir`, for files the tests hand to kubectl).
 */
export function kubectlSuite(prefix: string, crds: object[] = []) {
  const suite = { ts: undefined as unknown as TestServer, dir: '', kubeconfig: '' };
  beforeAll(async () => {
    suite.dir = mkdtempSync(join(tmpdir(), prefix));
    suite.ts = await startTestServer({}, crds);
    suite.kubeconfig = join(suite.dir, 'kubeconfig');
    writeFileSync(suite.kubeconfig, suite.ts.kubeconfig, { mode: 0o600 });
    process.env.KUBECACHEDIR = join(suite.dir, 'cache');
  });
  afterAll(async () => {
    await suite.ts?.stop();
    if (suite.dir) rmSync(suite.dir, { recursive: true, force: true });
  });
  return { suite, ...kubectlRunner(() => suite.kubeconfig) };
}
