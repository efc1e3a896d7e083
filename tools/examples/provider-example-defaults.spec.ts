// The example provider (examples/provider-example) runs next to `npm start`: its defaults must not be the manager's
// (data dir, metrics and health ports), and a flag given on its command line wins over each.
import { DEFAULT_DATA_DIR, loadManagerConfig, type ManagerConfig } from '@capi/manager';
// The example is not a workspace project (it is built on the packed packages, tools/scripts/packages/pack-test.mjs),
// so the boundaries rule cannot place it; defaults.ts imports nothing.
// eslint-disable-next-line @nx/enforce-module-boundaries -- see above
import {
  EXAMPLE_CONTROLLERS,
  EXAMPLE_DATA_DIR,
  withExampleDefaults,
} from '../../examples/provider-example/src/defaults';

function config(argv: readonly string[]): ManagerConfig {
  const loaded = loadManagerConfig(argv, {});
  if (loaded.help) throw new Error('unexpected --help');
  return loaded.config;
}
const port = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));

describe('the example provider defaults', () => {
  const manager = config([]);
  const example = config(withExampleDefaults([]));

  it('both run the embedded default when started without flags', () => {
    expect(manager.apiServer.mode).toBe('embedded');
    expect(example.apiServer.mode).toBe('embedded');
  });

  it('its own data dir (so its own API server storage, kubeconfig and port file)', () => {
    expect(manager.dataDir).toBe(DEFAULT_DATA_DIR);
    expect(example.dataDir).toBe(EXAMPLE_DATA_DIR);
    expect(example.dataDir).not.toBe(manager.dataDir);
  });

  it('its own metrics and health ports, on loopback like the embedded default', () => {
    expect(port(example.metricsBindAddress)).not.toBe(port(manager.metricsBindAddress));
    expect(port(example.healthProbeBindAddress)).not.toBe(port(manager.healthProbeBindAddress));
    const all = [manager.metricsBindAddress, manager.healthProbeBindAddress];
    for (const a of [example.metricsBindAddress, example.healthProbeBindAddress]) {
      expect(a).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(all.map(port)).not.toContain(port(a));
    }
    expect(port(example.metricsBindAddress)).not.toBe(port(example.healthProbeBindAddress));
  });

  it('its controller set: no KubeadmControlPlane, no MachineHealthCheck', () => {
    expect(example.controllers).toEqual(EXAMPLE_CONTROLLERS.split(','));
    expect(manager.controllers).toEqual(expect.arrayContaining(['kcp', 'mhc']));
  });

  it('a flag on the command line wins, in any of its spellings', () => {
    const c = config(
      withExampleDefaults([
        '--data-dir',
        '/tmp/x',
        '--health-addr=127.0.0.1:1234',
        '-metrics-bind-address=0',
        '--controllers=machine',
      ]),
    );
    expect(c).toMatchObject({
      dataDir: '/tmp/x',
      healthProbeBindAddress: '127.0.0.1:1234',
      metricsBindAddress: '0',
      controllers: ['machine'],
    });
  });
});
