// The InPlaceOnly rollout policy on a KubeadmControlPlane (this project's extension; @capi/inplace rollout-policy.ts):
// why the Machine a rollout step selected is held back instead of deleted, and the condition the KCP shows. Pure.
import type { ConditionInput, Machine } from '@capi/api';
import { rolloutBlockedCondition, type BlockedRollout, type RolloutPolicy } from '@capi/inplace';
import type { TryInPlaceOutcome } from './try-inplace';
import type { NotUpToDateResult } from './uptodate';

/**
 * `outcome` is the in-place attempt (undefined when none was made: the Machine is not eligible, e.g. rolloutAfter or
 * certificate expiry, which are replacements by definition, or the InPlaceUpdates gate is off).
 */
export function blockedRolloutOf(
  machine: Machine,
  r: NotUpToDateResult,
  outcome: TryInPlaceOutcome | undefined,
  gateEnabled: boolean,
): BlockedRollout {
  const subject = `Machine ${machine.metadata.name}`;
  if (!outcome) {
    if (!gateEnabled) return { reason: 'NoUpdaters', subject };
    return {
      reason: 'ReplacementRequested',
      subject,
      why: `only a replacement does this rollout (${r.logMessages.join(', ')})`,
    };
  }
  const cannot = outcome.type === 'fallbackToScaleDown' ? outcome.cannot : undefined;
  if (!cannot)
    return { reason: 'ReplacementRequested', subject, why: 'fails the preflight checks itself (upstream replaces it)' };
  if (cannot.noUpdaters) return { reason: 'NoUpdaters', subject };
  if (!cannot.uncovered?.length) return { reason: 'ReplacementRequested', subject, why: cannot.reasons.join(', ') };
  return { reason: 'NotCoveredByUpdaters', subject, uncovered: cannot.uncovered, asked: cannot.asked ?? [] };
}

/**
 * RolloutBlocked for this reconcile: null without the policy (removed); the held-back Machine when a rollout step
 * was held back; False once no Machine is outdated or an in-place update was triggered (`blocked` empty); otherwise
 * (waiting for preflight or an update in progress) undefined, leaving the condition as it is.
 */
export function kcpRolloutBlocked(
  policy: RolloutPolicy,
  blocked: BlockedRollout[] | undefined,
  anyOutdated: boolean,
): ConditionInput | null | undefined {
  if (policy.type === 'Default') return null;
  if (blocked) return rolloutBlockedCondition(policy, blocked);
  if (!anyOutdated || policy.type === 'Invalid') return rolloutBlockedCondition(policy, []);
  return undefined;
}
