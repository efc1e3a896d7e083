import { ApiError } from '@capi/controller-runtime';
import { deletionTimeoutsPatch, isNotFoundCause, machineSyncInputs } from './sync-machines';
import { CLUSTER, kcp, machine } from './testing/fixtures';

describe('deletionTimeoutsPatch (the fields a deleting Machine still takes from the KCP)', () => {
  const withDeletion = (deletion?: Record<string, number>) => {
    const k = kcp();
    if (deletion) k.spec.machineTemplate.spec.deletion = deletion;
    return k;
  };
  const deleting = (deletion?: Record<string, number>) => {
    const m = machine('m1', { deleting: true });
    if (deletion) m.spec.deletion = deletion;
    return m;
  };

  it('sets the KCP timeouts the Machine lacks or has with another value', () => {
    expect(
      deletionTimeoutsPatch(
        withDeletion({ nodeDrainTimeoutSeconds: 60, nodeDeletionTimeoutSeconds: 5 }),
        deleting({ nodeDrainTimeoutSeconds: 10 }),
      ),
    ).toEqual({
      spec: { deletion: { nodeDrainTimeoutSeconds: 60, nodeDeletionTimeoutSeconds: 5 } },
    });
  });

  it('drops (null) the timeouts the KCP no longer sets', () => {
    expect(
      deletionTimeoutsPatch(
        withDeletion({ nodeDrainTimeoutSeconds: 60 }),
        deleting({ nodeDrainTimeoutSeconds: 60, nodeVolumeDetachTimeoutSeconds: 7 }),
      ),
    ).toEqual({
      spec: { deletion: { nodeVolumeDetachTimeoutSeconds: null } },
    });
    expect(deletionTimeoutsPatch(withDeletion(), deleting({ nodeDeletionTimeoutSeconds: 1 }))).toEqual({
      spec: { deletion: { nodeDeletionTimeoutSeconds: null } },
    });
  });

  it('is undefined when the timeouts already match (no write), zero included', () => {
    expect(deletionTimeoutsPatch(withDeletion(), deleting())).toBeUndefined();
    expect(
      deletionTimeoutsPatch(withDeletion({ nodeDrainTimeoutSeconds: 0 }), deleting({ nodeDrainTimeoutSeconds: 0 })),
    ).toBeUndefined();
    expect(deletionTimeoutsPatch(withDeletion({ nodeDrainTimeoutSeconds: 0 }), deleting())).toEqual({
      spec: { deletion: { nodeDrainTimeoutSeconds: 0 } },
    });
  });
});

describe('machineSyncInputs (memo inputs of the sync applies)', () => {
  it('changes with what the desired Machine and metadata are computed from', () => {
    const base = machineSyncInputs(kcp(), CLUSTER);
    const labelled = kcp();
    labelled.spec.machineTemplate.metadata = { labels: { tier: 'gold' } };
    const timeouts = kcp();
    timeouts.spec.machineTemplate.spec.deletion = { nodeDrainTimeoutSeconds: 1 };
    const tainted = kcp();
    tainted.spec.machineTemplate.spec.taints = [{ key: 'k', effect: 'NoSchedule', propagation: 'Always' }];
    const renamed = kcp();
    renamed.metadata.name = 'other';
    for (const changed of [
      machineSyncInputs(labelled, CLUSTER),
      machineSyncInputs(timeouts, CLUSTER),
      machineSyncInputs(tainted, CLUSTER),
      machineSyncInputs(renamed, CLUSTER),
      machineSyncInputs(kcp(), 'c2'),
    ]) {
      expect(changed).not.toBe(base);
    }
  });

  it('does not change with what only a rollout changes (version, kubeadm config, infrastructure template)', () => {
    const k = kcp({ version: 'v1.31.0' });
    k.spec.kubeadmConfigSpec = { files: [] };
    k.spec.machineTemplate.spec.infrastructureRef = {
      ...k.spec.machineTemplate.spec.infrastructureRef,
      name: 'tmpl-b',
    };
    expect(machineSyncInputs(k, CLUSTER)).toBe(machineSyncInputs(kcp(), CLUSTER));
  });
});

describe('isNotFoundCause', () => {
  const notFound = new ApiError(404, { reason: 'NotFound', message: 'machines "m1" not found' });
  it('finds a NotFound through wrapping errors', () => {
    expect(isNotFoundCause(notFound)).toBe(true);
    expect(isNotFoundCause(new Error('failed to update Machine default/m1', { cause: notFound }))).toBe(true);
  });
  it('is false for other errors', () => {
    expect(isNotFoundCause(new Error('boom', { cause: new ApiError(409, { reason: 'Conflict' }) }))).toBe(false);
    expect(isNotFoundCause(undefined)).toBe(false);
  });
});
