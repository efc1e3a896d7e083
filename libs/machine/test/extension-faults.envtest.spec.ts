// The Machine controller's in-place update against a faulty UpdateMachine extension over real HTTPS and the
// embedded API server. Per fault: a clear condition, retries bounded by the controller's exponential backoff,
// another cluster (namespace, own ExtensionConfig picked by namespaceSelector) unaffected, completion once healed.
import type { KubeObject } from '@capi/apimachinery';
import { ItemExponentialFailureRateLimiter } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import { UPDATE_MACHINE_FAILED_MESSAGE } from '../src/inplace-decision';
import { FAILURE_MESSAGE, type ExtensionFault, type FaultyExtension } from './support/faulty-extension';
import {
  conditionOf,
  createNamespace,
  createReadyCluster,
  createRunningMachine,
  inPlaceUpdateCompleted,
  MACHINE_API,
  MARKERS_ON,
  PENDING_UPDATE_MACHINE,
  ref,
  triggerInPlaceUpdate,
} from './support/fixtures';
import { registerFaultyExtension, startHarness, type Harness } from './support/harness';
import { MACHINE_CONTROLLER_NAME } from '../src/options';

jest.setTimeout(60_000);

const CLUSTER_LABEL = 'test.cluster.x-k8s.io/cluster';
const HEALTHY_NS = 'healthy';
/** Requests to the faulty extension are counted over this long after its first one. */
const WINDOW_MS = 1500;
/** Reconciles besides the rate-limited retries: the first failure's own status write re-queues the Machine once. */
const EVENT_TRIGGERED_SLACK = 3;

/**
 * Most calls a failing item can make within `ms` of its first failure when every retry goes through the controller's
 * default per-item backoff (base · 2^failures): retry k is due base · (2^k − 1) ms after the first call.
 */
function maxCallsWithBackoff(ms: number): number {
  const base = new ItemExponentialFailureRateLimiter().baseDelayMs;
  return 1 + Math.floor(Math.log2(ms / base + 1)) + EVENT_TRIGGERED_SLACK;
}

const handler = (ext: string) => `"update-machine.${ext}"`;
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The cause each fault must surface in the reconcile error (the condition message is upstream's fixed text).
const FAULTS: [ExtensionFault, (ext: string) => RegExp][] = [
  ['slow', (ext) => new RegExp(`failed to call extension handler ${esc(handler(ext))}: request timed out after 1s`)],
  ['http500', (ext) => new RegExp(`failed to call extension handler ${esc(handler(ext))}: got HTTP status 500`)],
  [
    'truncatedJson',
    (ext) => new RegExp(`failed to decode response from extension handler ${esc(handler(ext))}: .*JSON`),
  ],
  [
    'wrongTypes',
    (ext) =>
      new RegExp(
        `failed to decode response from extension handler ${esc(handler(ext))}: invalid UpdateMachineResponse: .*retryAfterSeconds`,
      ),
  ],
  [
    'failureStatus',
    (ext) =>
      new RegExp(
        `failed to call extension handler ${esc(handler(ext))}: got failure response with message: ${esc(FAILURE_MESSAGE)}`,
      ),
  ],
  [
    'untrustedCertificate',
    (ext) =>
      new RegExp(
        `failed to call extension handler ${esc(handler(ext))}: .*(self[- ]signed certificate|unable to verify)`,
      ),
  ],
];

describe('Machine in-place update against a faulty UpdateMachine extension (envtest, HTTPS)', () => {
  let h: Harness;
  let healthy: FaultyExtension;
  const extensions: FaultyExtension[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    h = await startHarness({ inPlaceUpdates: true });
    await createNamespace(h.client, HEALTHY_NS, { [CLUSTER_LABEL]: HEALTHY_NS });
    await createReadyCluster(h.client, HEALTHY_NS);
    healthy = await registerFaultyExtension(h, 'healthy-updater', undefined, {
      namespaceSelector: { matchLabels: { [CLUSTER_LABEL]: HEALTHY_NS } },
    });
    extensions.push(healthy);
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all(extensions.map((e) => e.close()));
    process.off('unhandledRejection', onUnhandled);
  });

  const getMachine = (ns: string, name: string) => h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, name));
  const updatingReason = async (ns: string, name: string) =>
    conditionOf(await getMachine(ns, name), 'Updating')?.reason;

  it.each(FAULTS)(
    '%s: InPlaceUpdateFailed, retries with backoff, the other cluster completes, then it completes once healed',
    async (fault, cause) => {
      const ns = `faulty-${fault.toLowerCase()}`;
      const extName = `updater-${ns}`;
      const [bad, good] = [`m-${fault.toLowerCase()}`, `h-${fault.toLowerCase()}`];
      await createNamespace(h.client, ns, { [CLUSTER_LABEL]: ns });
      await createReadyCluster(h.client, ns);
      const faulty = await registerFaultyExtension(h, extName, fault, {
        namespaceSelector: { matchLabels: { [CLUSTER_LABEL]: ns } },
      });
      extensions.push(faulty);
      await Promise.all([createRunningMachine(h.client, ns, bad), createRunningMachine(h.client, HEALTHY_NS, good)]);
      const healthyCallsBefore = healthy.machines.length;

      await Promise.all([triggerInPlaceUpdate(h.client, ns, bad), triggerInPlaceUpdate(h.client, HEALTHY_NS, good)]);

      // 1. A clear condition on the Machine of the faulty cluster; the markers stay, so the update is retried.
      const failed = await eventually(async () => {
        const m = await getMachine(ns, bad);
        return conditionOf(m, 'Updating')?.reason === 'InPlaceUpdateFailed' && m;
      }, `${bad}: Updating InPlaceUpdateFailed`);
      expect(conditionOf(failed, 'Updating')).toMatchObject({ status: 'True', message: UPDATE_MACHINE_FAILED_MESSAGE });
      expect(failed.metadata.annotations).toMatchObject({ ...MARKERS_ON, ...PENDING_UPDATE_MACHINE });

      // 3. Meanwhile the other cluster's Machine completes through its own extension.
      await inPlaceUpdateCompleted(h.client, HEALTHY_NS, good);
      expect(healthy.machines.slice(healthyCallsBefore)).toEqual([good]);

      // 2. Retries are bounded: over a fixed window after the first call, at most what exponential backoff allows
      // (a hot loop would make hundreds), and every failed reconcile went through the rate limiter.
      await eventually(() => faulty.attempts() >= 2, `${bad}: retried`);
      const first = faulty.attemptTimes[0];
      await eventually(() => Date.now() > first + WINDOW_MS, {
        message: 'window elapsed',
        timeoutMs: WINDOW_MS + 5000,
        intervalMs: 50,
      });
      const inWindow = faulty.attemptTimes.filter((t) => t <= first + WINDOW_MS).length;
      const requeues = h.manager.controller(MACHINE_CONTROLLER_NAME)!.queue.numRequeues({ namespace: ns, name: bad });
      const attempts = faulty.attempts();
      expect(inWindow).toBeGreaterThanOrEqual(2);
      expect(inWindow).toBeLessThanOrEqual(maxCallsWithBackoff(WINDOW_MS));
      expect(Math.abs(requeues - attempts)).toBeLessThanOrEqual(1); // the one in flight may not be counted yet
      expect(await updatingReason(ns, bad)).toBe('InPlaceUpdateFailed');

      // The cause, naming the hook's handler, is in the reconcile error (and the controller's error log).
      await expect(h.reconcile({ namespace: ns, name: bad })).rejects.toThrow(cause(extName));

      // 4. Once the extension answers correctly, the next retry completes the update.
      faulty.heal();
      await inPlaceUpdateCompleted(h.client, ns, bad);
      // Each extension only saw its own cluster's Machine (TLS-rejected calls carry no readable request).
      expect(new Set(faulty.machines)).toEqual(new Set([bad]));
      expect(healthy.machines.filter((m) => m === bad)).toEqual([]);
      expect(unhandled).toEqual([]);

      await faulty.close();
    },
  );
});
