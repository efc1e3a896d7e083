import {
  decideAfterUpdateMachine,
  decideInPlaceStep,
  inProgressMessage,
  updatingReportFor,
  type InPlaceState,
} from './inplace-decision';

const ready: InPlaceState = {
  gateEnabled: true,
  inProgress: true,
  pending: true,
  infrastructureProvisioned: true,
  bootstrapDataSecretCreated: true,
  hasNodeRef: true,
  infraMachineFound: true,
  infraMachineMarked: true,
  hasBootstrapConfig: true,
  bootstrapConfigMarked: true,
};

describe('decideInPlaceStep', () => {
  it('does nothing with the gate off, whatever the markers', () => {
    expect(decideInPlaceStep({ ...ready, gateEnabled: false })).toEqual({ type: 'Nothing', why: 'GateDisabled' });
    expect(decideInPlaceStep({ ...ready, gateEnabled: false, inProgress: false })).toEqual({
      type: 'Nothing',
      why: 'GateDisabled',
    });
  });
  it('does nothing without markers', () => {
    expect(decideInPlaceStep({ ...ready, inProgress: false, pending: false })).toEqual({
      type: 'Nothing',
      why: 'NotUpdating',
    });
  });
  it('cleans up an orphaned pending hook', () => {
    expect(decideInPlaceStep({ ...ready, inProgress: false })).toEqual({ type: 'CleanupOrphan' });
  });
  it('waits for the owner when the hook is not pending yet', () => {
    expect(decideInPlaceStep({ ...ready, pending: false })).toEqual({ type: 'WaitForOwner' });
  });
  it('waits silently for every precondition', () => {
    expect(
      decideInPlaceStep({
        ...ready,
        hasNodeRef: false,
        bootstrapDataSecretCreated: false,
        infrastructureProvisioned: false,
      }),
    ).toEqual({
      type: 'WaitForPreconditions',
      missing: [
        'status.initialization.infrastructureProvisioned',
        'status.initialization.bootstrapDataSecretCreated',
        'status.nodeRef',
      ],
    });
    expect(decideInPlaceStep({ ...ready, hasNodeRef: false })).toEqual({
      type: 'WaitForPreconditions',
      missing: ['status.nodeRef'],
    });
  });
  it('preconditions are checked before the infra machine lookup', () => {
    expect(decideInPlaceStep({ ...ready, infraMachineFound: false, hasNodeRef: false }).type).toBe(
      'WaitForPreconditions',
    );
  });
  it('fails when the infra machine is missing', () => {
    expect(decideInPlaceStep({ ...ready, infraMachineFound: false, infraMachineMarked: false })).toEqual({
      type: 'FailInfraMachineMissing',
    });
  });
  it('waits for markers on infra machine and bootstrap config', () => {
    expect(decideInPlaceStep({ ...ready, infraMachineMarked: false })).toEqual({
      type: 'WaitForMarkers',
      missing: ['InfraMachine'],
    });
    expect(decideInPlaceStep({ ...ready, infraMachineMarked: false, bootstrapConfigMarked: false })).toEqual({
      type: 'WaitForMarkers',
      missing: ['InfraMachine', 'BootstrapConfig'],
    });
  });
  it('a Machine without bootstrap config object needs no bootstrap marker', () => {
    expect(decideInPlaceStep({ ...ready, hasBootstrapConfig: false, bootstrapConfigMarked: false })).toEqual({
      type: 'CallUpdateMachine',
    });
  });
  it('honours the retry cache: no call before the retry time', () => {
    expect(decideInPlaceStep({ ...ready, retry: { remainingMs: 4000, message: 'busy' } })).toEqual({
      type: 'WaitForRetry',
      remainingMs: 4000,
      message: 'busy',
    });
  });
  it('calls UpdateMachine when everything is in place', () => {
    expect(decideInPlaceStep(ready)).toEqual({ type: 'CallUpdateMachine' });
  });
});

describe('decideAfterUpdateMachine / updatingReportFor', () => {
  it('retryAfterSeconds > 0 is in progress with the extension message', () => {
    const o = decideAfterUpdateMachine({ retryAfterSeconds: 10, message: 'step 1' });
    expect(o).toEqual({ type: 'InProgress', retryAfterSeconds: 10, message: 'step 1' });
    expect(updatingReportFor(o)).toEqual({ reason: 'InPlaceUpdating', message: 'In-place update in progress: step 1' });
  });
  it('retryAfterSeconds 0 is completed', () => {
    expect(decideAfterUpdateMachine({ retryAfterSeconds: 0, message: 'done' })).toEqual({
      type: 'Completed',
      message: 'done',
    });
    expect(updatingReportFor({ type: 'Completed', message: '' })).toBeUndefined();
  });
  it('an error is InPlaceUpdateFailed with the upstream message', () => {
    const o = decideAfterUpdateMachine({ error: new Error('boom') });
    expect(o.type).toBe('Failed');
    expect(updatingReportFor(o)).toEqual({
      reason: 'InPlaceUpdateFailed',
      message: 'UpdateMachine hook failed: please check controller logs for errors',
    });
  });
  it('infra machine missing has its own message', () => {
    expect(updatingReportFor({ type: 'FailInfraMachineMissing' })).toEqual({
      reason: 'InPlaceUpdateFailed',
      message: 'In-place update not possible: InfraMachine not found',
    });
  });
  it('message without extension message', () => {
    expect(inProgressMessage('')).toBe('In-place update in progress');
  });
});
