// npm run kube:build on bad days: one `error:` line naming the cause and a non-zero exit, quickly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNodeScript } from '../support/run-script';

jest.setTimeout(120_000);

const build = (env: Record<string, string>) =>
  runNodeScript(join(__dirname, 'build.mjs'), { KUBEBUILDER_ASSETS: '', ...env });

describe('kube:build', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'kube-build-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('without go: one error line saying go was not found, exit 1', () => {
    const r = build({ CAPI_KUBE_CACHE: join(dir, 'empty-cache'), CAPI_KUBE_GO: join(dir, 'no-go') });
    expect(r.status).toBe(1);
    expect(r.errorLines).toEqual([
      `error: go not found (CAPI_KUBE_GO=${join(dir, 'no-go')}): it builds kube-apiserver and etcd`,
    ]);
  });

  it("a module that cannot be fetched: one error line naming the component and go's cause, exit 1", () => {
    // An empty module cache and no proxy: the first module go needs cannot be had.
    const r = build({
      CAPI_KUBE_CACHE: join(dir, 'empty-cache'),
      GOMODCACHE: join(dir, 'modcache'),
      GOPROXY: 'off',
      GOFLAGS: '-mod=mod',
    });
    expect(r.status).toBe(1);
    expect(r.errorLines).toHaveLength(1);
    expect(r.errorLines[0]).toMatch(
      /^error: building kube-apiserver v1\.36\.3 failed: .*(GOPROXY=off|module lookup disabled)/,
    );
  });
});
