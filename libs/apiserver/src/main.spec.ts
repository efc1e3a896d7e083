import { resolve } from 'node:path';
import { parseArgs } from './main';

describe('main parseArgs', () => {
  it('reads --data-dir, --port and --kubeconfig-out (also in --flag=value form)', () => {
    expect(parseArgs(['--data-dir', '/tmp/d', '--port=6443', '--kubeconfig-out', '/tmp/k'])).toMatchObject({
      dataDir: '/tmp/d',
      port: 6443,
      kubeconfigOut: '/tmp/k',
      tls: true,
      memory: false,
    });
  });
  it('defaults the kubeconfig into the data dir', () => {
    expect(parseArgs(['--data-dir', 'rel']).kubeconfigOut).toBe(resolve('rel', 'kubeconfig'));
  });
  it('rejects unknown flags and bad ports with a clear error', () => {
    expect(() => parseArgs(['--nope'])).toThrow('unknown flag --nope');
    expect(() => parseArgs(['--port', 'abc'])).toThrow(/invalid --port/);
    expect(() => parseArgs(['--port'])).toThrow('--port needs a value');
  });
});
