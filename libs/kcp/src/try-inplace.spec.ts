// Upstream reconcilers/kubeadmcontrolplane/inplace_test.go Test_tryInPlaceUpdate (every case).
import type { PreflightResult } from './decide';
import { tryInPlaceUpdate, type TryInPlaceDeps } from './try-inplace';

const CANDIDATE = 'machine-to-in-place-update';
const ok: PreflightResult = { ok: true, messages: [], results: {} };
const failing: PreflightResult = {
  ok: false,
  messages: ['Machine x reports APIServerPodHealthy condition is false'],
  results: { controlPlaneComponentsNotHealthy: true },
};

/** Fakes recording how often CanUpdateMachine and the trigger were called (upstream's override funcs). */
function deps(over: Partial<TryInPlaceDeps>) {
  const calls = { canUpdate: 0, trigger: 0 };
  const canUpdate = over.canUpdateMachine ?? (async () => ({ canUpdate: true, reasons: [], updaters: ['ext'] }));
  const trigger = over.triggerInPlaceUpdate ?? (async () => undefined);
  const d: TryInPlaceDeps = {
    preflight: over.preflight ?? (() => ok),
    canUpdateMachine: () => {
      calls.canUpdate++;
      return canUpdate();
    },
    triggerInPlaceUpdate: (updaters) => {
      calls.trigger++;
      return trigger(updaters);
    },
  };
  return { d, calls };
}

describe('Test_tryInPlaceUpdate', () => {
  it('Requeue if preflight checks for all Machines failed', async () => {
    const { d, calls } = deps({ preflight: () => failing });
    expect(await tryInPlaceUpdate([], CANDIDATE, true, d)).toEqual({
      type: 'wait',
      messages: failing.messages,
      results: failing.results,
    });
    expect(calls).toEqual({ canUpdate: 0, trigger: 0 });
  });

  it('Fallback to scale down if checks for all Machines failed, but checks succeed when excluding machineToInPlaceUpdate', async () => {
    const { d, calls } = deps({ preflight: (ignore) => (ignore === CANDIDATE ? ok : failing) });
    expect(await tryInPlaceUpdate([], CANDIDATE, true, d)).toEqual({ type: 'fallbackToScaleDown' });
    expect(calls).toEqual({ canUpdate: 0, trigger: 0 });
  });

  it('Return error if canUpdateMachine returns an error', async () => {
    const { d, calls } = deps({
      canUpdateMachine: async () => {
        throw new Error(`failed to determine if Machine ${CANDIDATE} can be updated in-place: canUpdateMachine error`);
      },
    });
    await expect(tryInPlaceUpdate([], CANDIDATE, true, d)).rejects.toThrow(
      'failed to determine if Machine machine-to-in-place-update can be updated in-place: canUpdateMachine error',
    );
    expect(calls).toEqual({ canUpdate: 1, trigger: 0 });
  });

  it('Fallback to scale down if canUpdateMachine returns false', async () => {
    const { d, calls } = deps({ canUpdateMachine: async () => ({ canUpdate: false, reasons: ['no'] }) });
    expect(await tryInPlaceUpdate([], CANDIDATE, true, d)).toEqual({
      type: 'fallbackToScaleDown',
      reasons: ['no'],
      cannot: { canUpdate: false, reasons: ['no'] },
    });
    expect(calls).toEqual({ canUpdate: 1, trigger: 0 });
  });

  it('Trigger in-place update if canUpdateMachine returns true', async () => {
    const seen: (string[] | undefined)[] = [];
    const { d, calls } = deps({ triggerInPlaceUpdate: async (u) => void seen.push(u) });
    expect(await tryInPlaceUpdate([], CANDIDATE, true, d)).toEqual({ type: 'triggered' });
    expect(calls).toEqual({ canUpdate: 1, trigger: 1 });
    expect(seen).toEqual([['ext']]);
  });
});
