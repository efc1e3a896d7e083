// node tools/clusterctl/build.mjs on bad days: one `error:` line naming the cause and a non-zero exit, quickly; and the
// release stamp upstream's Makefile puts into clusterctl (hack/scripts/release/version.sh).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNodeScript } from '../support/run-script';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ldflags } = require('./assets.mjs') as { ldflags(version: string): string };

jest.setTimeout(120_000);

const build = (env: Record<string, string>, args: string[] = []) =>
  runNodeScript(join(__dirname, 'build.mjs'), env, args);

describe('clusterctl build', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'clusterctl-build-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stamps the release version as upstream`s Makefile does (an unstamped clusterctl is a dev build)', () => {
    expect(ldflags('v1.14.2').split(' ')).toEqual([
      '-X',
      'sigs.k8s.io/cluster-api/version.gitVersion=v1.14.2',
      '-X',
      'sigs.k8s.io/cluster-api/version.gitMajor=1',
      '-X',
      'sigs.k8s.io/cluster-api/version.gitMinor=14',
      '-X',
      'sigs.k8s.io/cluster-api/version.gitTreeState=clean',
      '-X',
      'sigs.k8s.io/cluster-api/version.buildDate=1970-01-01T00:00:00Z',
      '-s',
      '-w',
    ]);
    expect(() => ldflags('main')).toThrow('is not a release version');
  });

  it('--print with nothing built: one error line saying how to build, exit 1', () => {
    const r = build({ CAPI_CLUSTERCTL_CACHE: join(dir, 'empty-cache') }, ['--print']);
    expect(r.status).toBe(1);
    expect(r.errorLines).toEqual(['error: clusterctl v1.14.2 is not built: run `node tools/clusterctl/build.mjs`']);
  });

  it('without go: one error line saying go was not found, exit 1', () => {
    const r = build({ CAPI_CLUSTERCTL_CACHE: join(dir, 'empty-cache'), CAPI_KUBE_GO: join(dir, 'no-go') });
    expect(r.status).toBe(1);
    expect(r.errorLines).toEqual([`error: go not found (CAPI_KUBE_GO=${join(dir, 'no-go')}): it builds clusterctl`]);
  });

  it("a module that cannot be fetched: one error line with go's cause, exit 1, nothing left in the cache", () => {
    const cache = join(dir, 'empty-cache');
    const r = build({ CAPI_CLUSTERCTL_CACHE: cache, GOMODCACHE: join(dir, 'modcache'), GOPROXY: 'off' });
    expect(r.status).toBe(1);
    expect(r.errorLines).toHaveLength(1);
    expect(r.errorLines[0]).toMatch(
      /^error: building clusterctl v1\.14\.2 failed: .*(GOPROXY=off|module lookup disabled)/,
    );
    expect(build({ CAPI_CLUSTERCTL_CACHE: cache }, ['--print']).status).toBe(1);
  });
});
