// End to end: the live view in a browser during the demo. The manager runs as `npm start` does (its own process, the
// embedded default) with --live-view-address; the demo flow (tools/demo) creates a Cluster, updates every Machine in
// place, then replaces every Machine; Chromium (Debian's, driven by playwright-core) shows the page, and the test
// follows the tiles and the counts as they change, with screenshots in tmp/e2e/live-view/.
// CAPI_LIVE_VIEW_DOCS_SCREENSHOT=1 also writes the rollout screenshot to docs/images/live-view.png.
// Embedded target only: the view reads the manager's informers, whatever the API server.
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@capi/controller-runtime';
import type { Locator, Page } from 'playwright-core';
import { DemoRun, type DemoResult } from '../demo/flow';
import { launchChromium, type Browser } from './browser';
import { startManagerWithLiveView, type ManagerProcess } from './manager';

// Creation, the in-place phase and the rollout at the reference updater's real timings (15-19 s an update), on two
// shared cores.
jest.setTimeout(900_000);

const root = join(__dirname, '../..');
const outDir = join(root, 'tmp/e2e/live-view');
const PHASE_MS = 300_000;

let manager: ManagerProcess | undefined;
let browser: Browser | undefined;
let client: KubeClient | undefined;

afterAll(async () => {
  await browser?.close();
  client?.close();
  await manager?.stop();
});

/** Waits until the locator matches `n` elements (locator.waitFor waits for one). */
async function waitForCount(locator: Locator, n: number, what: string, timeoutMs = PHASE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const count = await locator.count();
    if (count === n) return;
    if (Date.now() > deadline) throw new Error(`${what}: ${count} element(s) after ${timeoutMs} ms, want ${n}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(outDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

const counts = (page: Page, owner: string, field: 'in-place' | 'replaced', n: number) =>
  page.locator(`[data-testid=counts][data-owner="${owner}"][data-${field}="${n}"]`);

it('shows the Machines updated in place, then replaced, as the demo runs', async () => {
  mkdirSync(outDir, { recursive: true });
  manager = await startManagerWithLiveView(180_000);
  const kc = new KubeConfig();
  kc.loadFromString(readFileSync(manager.kubeconfigPath, 'utf8'));
  client = new KubeClient(kc);
  browser = await launchChromium();
  const page = await browser.context.newPage();
  await page.goto(manager.url);
  await page.locator('[data-testid=connection]', { hasText: 'live' }).waitFor({ timeout: 30_000 });

  const lines: string[] = [];
  // keep: the page is checked after the demo; the manager's data dir goes with it.
  const demo: Promise<DemoResult> = new DemoRun({
    client,
    out: (l) => lines.push(l),
    phaseTimeoutMs: PHASE_MS,
    keep: true,
  }).run();
  // If a wait below fails first, the demo's own failure is reported with it rather than left unhandled.
  demo.catch(() => undefined);
  const cluster = page.locator('[data-cluster="default/demo"]');
  const tiles = cluster.locator('[data-testid=machine-tile]');
  try {
    await cluster.waitFor({ timeout: 60_000 });
    // Creation: 3 control-plane Machines and 3 workers, ready and up to date.
    await waitForCount(
      cluster.locator('[data-testid=machine-tile][data-state=up-to-date]'),
      6,
      'up-to-date tiles after creation',
    );
    await expectCountsVisible(page);

    // The version change: Machines updating in place, then each owner's in-place count reaches its 3 Machines.
    await cluster.locator('[data-testid=machine-tile][data-state=updating]').first().waitFor({ timeout: PHASE_MS });
    await screenshot(page, '1-updating-in-place');
    await counts(page, 'KubeadmControlPlane/demo-cp', 'in-place', 3).waitFor({ timeout: PHASE_MS });
    await counts(page, 'MachineDeployment/demo-md-0', 'in-place', 3).waitFor({ timeout: PHASE_MS });

    // The image change: outdated Machines deleted and replaced.
    await cluster.locator('[data-testid=machine-tile][data-state=deleting]').first().waitFor({ timeout: PHASE_MS });
    await counts(page, 'MachineDeployment/demo-md-0', 'replaced', 1).waitFor({ timeout: PHASE_MS });
    const rollout = await screenshot(page, '2-replacing');
    if (process.env.CAPI_LIVE_VIEW_DOCS_SCREENSHOT)
      await page.locator('main').screenshot({ path: join(root, 'docs/images/live-view.png') });
    expect(statSync(rollout).size).toBeGreaterThan(10_000);
  } catch (e) {
    await screenshot(page, 'failure').catch(() => undefined);
    throw new Error(`${(e as Error).message}\ndemo output so far:\n${lines.join('\n')}`);
  }

  const result = await demo;
  expect(result.problems).toEqual([]);
  // Settled: 6 Machines up to date; per owner 3 updated in place and 3 replaced.
  try {
    await waitForCount(
      cluster.locator('[data-testid=machine-tile][data-state=up-to-date]'),
      6,
      'up-to-date tiles after the rollout',
    );
    await waitForCount(tiles, 6, 'tiles after the rollout');
    for (const owner of ['KubeadmControlPlane/demo-cp', 'MachineDeployment/demo-md-0']) {
      await counts(page, owner, 'in-place', 3).waitFor({ timeout: 30_000 });
      await counts(page, owner, 'replaced', 3).waitFor({ timeout: 30_000 });
    }
  } catch (e) {
    await screenshot(page, 'failure').catch(() => undefined);
    const series = await page.evaluate(() => fetch('api/series').then((r) => r.text()));
    throw new Error(`${(e as Error).message}\ncounts: ${series}\ndemo output:\n${lines.join('\n')}`);
  }
  const final = await screenshot(page, '3-settled');
  expect(statSync(final).size).toBeGreaterThan(10_000);
});

/** The chart of each rollout owner is on the page from the start, both counts at 0. */
async function expectCountsVisible(page: Page): Promise<void> {
  for (const owner of ['KubeadmControlPlane/demo-cp', 'MachineDeployment/demo-md-0']) {
    await counts(page, owner, 'in-place', 0).waitFor({ timeout: 30_000 });
    await counts(page, owner, 'replaced', 0).waitFor({ timeout: 30_000 });
  }
}
