import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A run whose test leaves a server open must end, name the server and count as a failure, not hang CI until its limit.
describe('summary reporter exit watchdog', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'capi-summary-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('ends a run that does not exit and records why', () => {
    const config = join(__dirname, 'fixtures', 'leaky', 'jest.config.js');
    const run = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '-c', config, '-i'], {
      encoding: 'utf8',
      timeout: 60000,
      env: { ...process.env, CAPI_TEST_RESULTS_DIR: dir, CAPI_TEST_EXIT_GRACE_MS: '1500', ENVTEST_TARGET: '' },
    });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /error: .*jest did not exit 1\.5 s after its run; open handles: .*Server on .*127\.0\.0\.1/,
    );
    const summary = JSON.parse(readFileSync(join(dir, 'tools_jest_fixtures_leaky.json'), 'utf8'));
    expect(summary).toMatchObject({ passed: 1, failed: 1 });
    expect(summary.failedTests[0].name).toBe('the run exits once its tests are done');
  });
});
