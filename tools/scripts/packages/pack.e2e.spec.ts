// CI test of the publishable packages: tools/scripts/packages/pack-test.mjs builds and packs them, installs the
// tarballs into a copy of examples/provider-example outside the repository with plain npm, compiles it and runs one
// in-place update through its in-process updater on the embedded API server.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

jest.setTimeout(300_000);

it('the packed packages install, compile and run the example provider end to end', async () => {
  const script = join(__dirname, 'pack-test.mjs');
  const result = await new Promise<{ status: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('exit', (status) => resolve({ status, output }));
  });
  if (result.status !== 0) throw new Error(result.output.slice(-8000));
  // Its default data dir is its own (.capi-example, not the manager's .capi), and it says where the kubeconfig is.
  expect(result.output).toMatch(/Example provider ready\. kubeconfig: \S+\/\.capi-example\/kubeconfig\n/);
  expect(result.output).toContain('"inPlace":true');
  expect(result.output).toContain('"extensionConfigs":0');
  expect(result.output).toContain('in-place update through the in-process updater: ok');
});
