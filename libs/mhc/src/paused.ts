// Paused condition of a MachineHealthCheck (upstream util/paused EnsurePausedCondition; shared @capi/api rule). The
// MHC applies its whole status each reconcile, so only the condition and the verdict are used here.
import { ensurePaused, type ConditionInput } from '@capi/api';

export function pausedCondition(
  clusterPaused: boolean,
  mhcAnnotations: Record<string, string> | undefined,
): ConditionInput & { paused: boolean } {
  const { paused, condition } = ensurePaused(
    { kind: 'MachineHealthCheck', metadata: { annotations: mhcAnnotations } },
    clusterPaused,
  );
  const { observedGeneration: _generation, ...rest } = condition;
  return { paused, ...rest };
}
