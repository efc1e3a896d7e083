// An UpdateMachine extension answering with a multi-megabyte message: the runtime client bounds it when it receives
// it (libs/runtime-client/src/message-limit.ts), so the Machine's Updating and Ready conditions carry the bounded text
// and the status write succeeds. Unbounded, the write fails (413 here, 422 from kube-apiserver's condition schema) on
// every retry and the Machine's status is stuck.
import type { KubeObject } from '@capi/apimachinery';
import { eventually } from '@capi/envtest';
import { MAX_EXTENSION_MESSAGE_CHARS, type ExtensionServer } from '@capi/runtime-client';
import {
  conditionOf,
  createNamespace,
  createReadyCluster,
  createRunningMachine,
  MACHINE_API,
  ref,
  triggerInPlaceUpdate,
} from './support/fixtures';
import { registerExtension, startHarness, type Harness } from './support/harness';

jest.setTimeout(60_000);

const NS = 'chatty';
const HUGE = 'y'.repeat(3 * 1024 * 1024);
const TRUNCATED = /^In-place update in progress: (y+)\.\.\. \(truncated, (\d+) more characters\)$/;

describe('Machine in-place update with an UpdateMachine extension answering a 3 MB message (envtest)', () => {
  let h: Harness;
  let server: ExtensionServer | undefined;

  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: true });
    await createNamespace(h.client, NS);
    await createReadyCluster(h.client, NS);
    server = await registerExtension(h, 'chatty-updater', [
      {
        hook: 'UpdateMachine',
        name: 'update-machine',
        handle: () => ({ retryAfterSeconds: 30, message: HUGE }),
      },
    ]);
  });
  afterAll(async () => {
    await h?.close();
    await server?.close();
  });

  it('the Updating condition gets the bounded message and the status write succeeds', async () => {
    await createRunningMachine(h.client, NS, 'm1');
    await triggerInPlaceUpdate(h.client, NS, 'm1');

    const m = await eventually(async () => {
      const got = await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', NS, 'm1'));
      return conditionOf(got, 'Updating')?.message?.startsWith('In-place update in progress: y') && got;
    }, 'Updating=True InPlaceUpdating with the extension message');
    const updating = conditionOf(m, 'Updating')!;
    expect(updating.status).toBe('True');
    const [, kept, more] = TRUNCATED.exec(updating.message!)!;
    expect(kept.length + Number(more)).toBe(HUGE.length);
    expect(updating.message!.length).toBeLessThanOrEqual(
      MAX_EXTENSION_MESSAGE_CHARS + 'In-place update in progress: '.length,
    );
    // Ready summarises Updating (negative polarity) with the same bounded text.
    expect(conditionOf(m, 'Ready')).toMatchObject({ status: 'False', message: `* Updating: ${updating.message}` });
    expect((m.status as { phase?: string }).phase).toBe('Updating');
  });
});
