// npm run kube:build once the binaries are built (the kube pass of npm test builds them first).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

it('kube:build, cached: prints the assets folder and builds nothing', () => {
  const r = spawnSync(process.execPath, [join(__dirname, 'build.mjs')], {
    encoding: 'utf8',
    env: { ...process.env, KUBEBUILDER_ASSETS: '' },
  });
  expect(r.status).toBe(0);
  expect(r.stdout.trim()).toMatch(/assets-kube-apiserver-v1\.36\.3-\w+_etcd-v3\.6\.14-\w+$/);
  expect(r.stderr).not.toContain('building');
});
