// The in-place-only rollout policy: this project's extension (no upstream counterpart), opt-in per MachineDeployment
// and KubeadmControlPlane through an annotation so upstream's types keep their wire format. Under it a rollout that
// the updaters do not cover replaces nothing: the owner reports why in the RolloutBlocked condition and waits for the
// spec or the updaters to change. Pure: the controllers decide what to hold back; this file names and words it.
import type { KubeObject } from '@capi/apimachinery';
import type { UncoveredFields } from './coverage';
import { extensionConfigOfHandler } from './updaters';

/** On a MachineDeployment or KubeadmControlPlane; the only accepted value is IN_PLACE_ONLY_ROLLOUT_POLICY. */
export const ROLLOUT_POLICY_ANNOTATION = 'in-place-updates.capi-inplace.io/rollout-policy';
export const IN_PLACE_ONLY_ROLLOUT_POLICY = 'InPlaceOnly';

/**
 * Negative polarity (True = something is held back), like upstream's RollingOut/ScalingUp; present only while the
 * annotation is set.
 */
export const ROLLOUT_BLOCKED_CONDITION = 'RolloutBlocked';

export const RolloutBlockedReason = {
  /** Updaters were asked and at least one field stays uncovered. */
  NotCoveredByUpdaters: 'NotCoveredByUpdaters',
  /** No updater is registered for the hook (or the InPlaceUpdates gate is off). */
  NoUpdaters: 'NoUpdaters',
  /** The rollout is a replacement by definition (spec.rollout.after, KCP certificate expiry via rollout.before). */
  ReplacementRequested: 'ReplacementRequested',
  /** The annotation has a value other than InPlaceOnly: replacements stay blocked until it is fixed. */
  InvalidRolloutPolicy: 'InvalidRolloutPolicy',
  /** False: nothing is held back. */
  NotBlocked: 'NotBlocked',
} as const;

export type RolloutPolicy =
  | { type: 'Default' }
  | { type: 'InPlaceOnly' }
  /** An unknown value: treated as InPlaceOnly (a replacement cannot be undone) and reported. */
  | { type: 'Invalid'; value: string };

export function rolloutPolicyOf(obj: Pick<KubeObject, 'metadata'>): RolloutPolicy {
  const value = obj.metadata.annotations?.[ROLLOUT_POLICY_ANNOTATION];
  if (value === undefined) return { type: 'Default' };
  if (value === IN_PLACE_ONLY_ROLLOUT_POLICY) return { type: 'InPlaceOnly' };
  return { type: 'Invalid', value };
}

/** Whether replacements are held back: the policy is set (valid or not). */
export const blocksReplacements = (policy: RolloutPolicy): boolean => policy.type !== 'Default';

/** Why one outdated object (an old MachineSet, a KCP Machine) would need a replacement. */
export type BlockedRollout =
  | { reason: 'NotCoveredByUpdaters'; subject: string; uncovered: UncoveredFields[]; asked: string[] }
  | { reason: 'NoUpdaters'; subject: string }
  | { reason: 'ReplacementRequested'; subject: string; why: string };

/** "kind spec.a, spec.b; kind2 spec.c" */
export function formatUncovered(uncovered: readonly UncoveredFields[]): string {
  return uncovered.map((u) => `${u.object} ${u.fields.join(', ')}`).join('; ');
}

/** The ExtensionConfigs (updaters) behind handler names "<handler>.<ExtensionConfig>", deduplicated, in order. */
export function updatersOf(handlers: readonly string[]): string[] {
  return [...new Set(handlers.map((h) => extensionConfigOfHandler(h) || h))];
}

function describe(b: BlockedRollout): string {
  switch (b.reason) {
    case 'NotCoveredByUpdaters':
      return `${b.subject}: not covered by updaters: ${formatUncovered(b.uncovered)} (updaters asked: ${updatersOf(b.asked).join(', ')})`;
    case 'NoUpdaters':
      return `${b.subject}: no updater registered`;
    case 'ReplacementRequested':
      return `${b.subject}: ${b.why}`;
  }
}

export interface RolloutBlockedConditionInput {
  type: typeof ROLLOUT_BLOCKED_CONDITION;
  status: 'True' | 'False';
  reason: string;
  message?: string;
}

const MAX_LISTED = 5;

/**
 * The RolloutBlocked condition, or undefined when the policy is not set (the condition is then removed). Reason: the
 * invalid policy first, else the first blocked item's (items in the owner's order), else NotBlocked.
 */
export function rolloutBlockedCondition(
  policy: RolloutPolicy,
  blocked: readonly BlockedRollout[],
): RolloutBlockedConditionInput | undefined {
  if (policy.type === 'Default') return undefined;
  const lines = blocked.slice(0, MAX_LISTED).map(describe);
  if (blocked.length > MAX_LISTED) lines.push(`... and ${blocked.length - MAX_LISTED} more`);
  if (policy.type === 'Invalid') {
    const head = `${ROLLOUT_POLICY_ANNOTATION}: unknown value ${JSON.stringify(policy.value)} (only ${IN_PLACE_ONLY_ROLLOUT_POLICY} is accepted); replacements are blocked until it is fixed`;
    return {
      type: ROLLOUT_BLOCKED_CONDITION,
      status: 'True',
      reason: RolloutBlockedReason.InvalidRolloutPolicy,
      message: [head, ...lines].join('; '),
    };
  }
  if (blocked.length === 0)
    return { type: ROLLOUT_BLOCKED_CONDITION, status: 'False', reason: RolloutBlockedReason.NotBlocked };
  return {
    type: ROLLOUT_BLOCKED_CONDITION,
    status: 'True',
    reason: RolloutBlockedReason[blocked[0].reason],
    message: `replacements blocked by ${ROLLOUT_POLICY_ANNOTATION}=${IN_PLACE_ONLY_ROLLOUT_POLICY}; ${lines.join('; ')}`,
  };
}
