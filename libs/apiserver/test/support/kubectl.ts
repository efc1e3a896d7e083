// Runs the real kubectl binary against a kubeconfig.
import { spawn } from 'node:child_process';

export interface KubectlRun { code: number | null; stdout: string; stderr: string }

export function kubectlRunner(kubeconfig: () => string) {
  const run = (args: string[], stdin?: string): Promise<KubectlRun> =>
    new Promise((resolve, reject) => {
      const p = spawn('kubectl', ['--kubeconfig', kubeconfig(), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('error', reject);
      p.on('close', (code) => resolve({ code, stdout, stderr }));
      p.stdin.end(stdin ?? '');
    });
  const ok = async (args: string[], stdin?: string): Promise<string> => {
    const r = await run(args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    return r.stdout;
  };
  return { run, ok };
}
