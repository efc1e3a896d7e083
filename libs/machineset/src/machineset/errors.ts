// Errors of one MachineSet reconcile: each phase records its failure and the later phases still run (upstream
// core/reconcilers/machineset/machineset_controller.go doReconcile); the reconcile returns them together.

/** A Machine that could not be deleted on scale down; `reason` shows on the ScalingDown condition. */
export class ScaleDownError extends Error {
  readonly reason = 'MachineDeletionFailed';
  constructor(message: string) {
    super(message);
    this.name = 'ScaleDownError';
  }
}

/** A Machine, or the InfraMachine/BootstrapConfig cloned for it, that could not be created (upstream's reasons). */
export class MachineCreationError extends Error {
  constructor(
    message: string,
    readonly reason: 'MachineCreationFailed' | 'InfrastructureTemplateCloningFailed' | 'BootstrapTemplateCloningFailed',
  ) {
    super(message);
    this.name = 'MachineCreationError';
  }
}

/** Per-Machine failures of syncMachines, together (the other Machines were synced). */
export class MachineSyncError extends Error {
  readonly reason = 'MachineSyncFailed';
  constructor(message: string) {
    super(message);
    this.name = 'MachineSyncError';
  }
}

/**
 * The errors as one (kerrors.NewAggregate): none is undefined, one is itself, several are joined as "[a, b]" with the
 * first one's reason.
 */
export function aggregateErrors(errors: readonly (Error | undefined)[]): Error | undefined {
  const all = errors.filter((e): e is Error => e !== undefined);
  if (all.length <= 1) return all[0];
  const aggregate = new Error(`[${all.map((e) => e.message).join(', ')}]`);
  const reason = (all[0] as { reason?: string }).reason;
  return reason ? Object.assign(aggregate, { reason }) : aggregate;
}
