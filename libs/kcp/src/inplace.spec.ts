// Upstream reconcilers/kubeadmcontrolplane/inplace_canupdatemachine_test.go Test_canUpdateMachine (the cases decided
// before any request) and inplace_trigger_test.go Test_triggerInPlaceUpdate (the nil desired-object cases). The cases
// that talk to the API server or extensions are in test/inplace.envtest.spec.ts and @capi/inplace's coverage specs.
import { canUpdateMachine, triggerInPlaceUpdate, type InPlaceDeps } from './inplace';
import { upToDate } from './uptodate';
import { CLUSTER, infraMachine, infraTemplate, kcp, kubeadmConfig, machine } from './testing/fixtures';

/** No client, applier or controller: any I/O would throw, so these cases prove none happens. */
const noIo = { events: { event: async () => undefined } } as unknown as InPlaceDeps;
const marker = { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' };

const result = () => {
  const k = kcp({ version: 'v1.30.1' });
  return upToDate({
    kcp: k,
    clusterName: CLUSTER,
    machine: machine('machine-to-in-place-update', { annotations: marker }),
    kubeadmConfig: kubeadmConfig('machine-to-in-place-update', k),
    infraMachine: infraMachine('machine-to-in-place-update'),
    infraTemplate: infraTemplate('tmpl-a'),
    now: new Date('2026-06-01T00:00:00Z'),
  }).result;
};

describe('Test_canUpdateMachine', () => {
  it('Return false if feature gate is not enabled', async () => {
    expect(await canUpdateMachine(noIo, result(), false)).toEqual({
      canUpdate: false,
      reasons: ['InPlaceUpdates feature gate is disabled'],
      noUpdaters: true,
    });
  });
  it('Return false if objects in machineUpToDateResult are nil', async () => {
    const r = { ...result(), currentInfraMachine: undefined, desiredKubeadmConfig: undefined };
    expect(await canUpdateMachine(noIo, r, true)).toEqual({
      canUpdate: false,
      reasons: ['could not compute currentInfraMachine, desiredKubeadmConfig'],
    });
  });
  it('Return false if no CanUpdateMachine extensions registered (no runtime client)', async () => {
    expect(await canUpdateMachine(noIo, result(), true)).toEqual({
      canUpdate: false,
      reasons: ['no runtime client configured'],
      noUpdaters: true,
    });
  });
});

describe('Test_triggerInPlaceUpdate', () => {
  const log = { log: () => undefined };
  it('Return error if desiredInfraMachine is nil', async () => {
    const r = { ...result(), desiredInfraMachine: undefined };
    await expect(triggerInPlaceUpdate(noIo, kcp(), r.currentMachine, r, log)).rejects.toThrow(
      'failed to complete triggering in-place update for Machine default/machine-to-in-place-update, could not compute desired InfraMachine',
    );
  });
  it('Return error if desiredKubeadmConfig is nil', async () => {
    const r = { ...result(), desiredKubeadmConfig: undefined };
    await expect(triggerInPlaceUpdate(noIo, kcp(), r.currentMachine, r, log)).rejects.toThrow(
      'failed to complete triggering in-place update for Machine default/machine-to-in-place-update, could not compute desired KubeadmConfig',
    );
  });
});
