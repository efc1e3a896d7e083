import type { KubeClient } from '@capi/controller-runtime';
import { clientFor, startEnvtest, type Envtest } from '@capi/envtest';
import { ApiEventRecorder } from '@capi/controller-runtime';
import { machine } from '../src/testing/fixtures';

describe('ApiEventRecorder', () => {
  let env: Envtest;
  let client: KubeClient;
  beforeAll(async () => {
    env = await startEnvtest({ installProjectCrds: false });
    client = clientFor(env);
  });
  afterAll(async () => {
    client.close();
    await env.stop();
  });

  it('creates a core/v1 Event about the object', async () => {
    const rec = new ApiEventRecorder(client, 'kubeadmcontrolplane-controller', () => new Date('2026-06-01T00:00:00Z'));
    await rec.event(machine('m1'), 'Normal', 'SuccessfulStartInPlaceUpdate', 'Machine starting in-place update');
    const events = await client.list('v1', 'Event', { namespace: 'default' });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({
      reason: 'SuccessfulStartInPlaceUpdate',
      message: 'Machine starting in-place update',
      type: 'Normal',
      involvedObject: { kind: 'Machine', name: 'm1', namespace: 'default', uid: 'm1-uid' },
      source: { component: 'kubeadmcontrolplane-controller' },
    });
  });
});
