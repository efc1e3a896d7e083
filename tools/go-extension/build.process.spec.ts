// node tools/go-extension/build.mjs on bad days: one `error:` line naming the cause and a non-zero exit, quickly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNodeScript } from '../support/run-script';

jest.setTimeout(120_000);

const build = (env: Record<string, string>, args: string[] = []) =>
  runNodeScript(join(__dirname, 'build.mjs'), env, args);

describe('go-extension build', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'go-extension-build-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--print with nothing built: one error line saying how to build, exit 1', () => {
    const r = build({ CAPI_GO_EXTENSION_CACHE: join(dir, 'empty-cache') }, ['--print']);
    expect(r.status).toBe(1);
    expect(r.errorLines).toEqual([
      'error: the Go extension (cluster-api v1.14.2) is not built: run `node tools/go-extension/build.mjs`',
    ]);
  });

  it('without go: one error line saying go was not found, exit 1', () => {
    const r = build({ CAPI_GO_EXTENSION_CACHE: join(dir, 'empty-cache'), CAPI_KUBE_GO: join(dir, 'no-go') });
    expect(r.status).toBe(1);
    expect(r.errorLines).toEqual([
      `error: go not found (CAPI_KUBE_GO=${join(dir, 'no-go')}): it builds the Go extension`,
    ]);
  });

  it("a module that cannot be fetched: one error line with go's cause, exit 1, nothing left in the cache", () => {
    const cache = join(dir, 'empty-cache');
    const r = build({ CAPI_GO_EXTENSION_CACHE: cache, GOMODCACHE: join(dir, 'modcache'), GOPROXY: 'off' });
    expect(r.status).toBe(1);
    expect(r.errorLines).toHaveLength(1);
    expect(r.errorLines[0]).toMatch(
      /^error: building the Go extension \(cluster-api v1\.14\.2\) failed: .*(GOPROXY=off|module lookup disabled)/,
    );
    expect(build({ CAPI_GO_EXTENSION_CACHE: cache }, ['--print']).status).toBe(1);
  });
});
