// The in-place-only rollout policy for a MachineDeployment (this project's extension; @capi/inplace rollout-policy.ts):
// which old MachineSets would be replaced, and why. The planner then holds those back (holdBackReplacements).
import type { MachineDeployment, MachineSet } from '@capi/api';
import type { BlockedRollout } from '@capi/inplace';
import { findNewAndOldMachineSets, type MachineDeploymentLike, type MachineSetLike } from '../rollout';
import type { MachineSetCoverage } from './can-update';

export interface InPlaceOnlyAssessment {
  /** Old MachineSets whose Machines would be replaced, in the order of `blocked`. */
  names: Set<string>;
  blocked: BlockedRollout[];
}

export interface AssessInput {
  md: MachineDeployment;
  machineSets: readonly MachineSet[];
  now: Date;
  /** The desired new MachineSet (existing or to be created), as the planner computes it. */
  desiredNewMS: (current: MachineSet | undefined) => MachineSet;
  /** Undefined when the InPlaceUpdates gate is off (then nothing is coverable). */
  coverage?: (oldMS: MachineSet, newMS: MachineSet) => Promise<MachineSetCoverage>;
}

const hasReplicas = (ms: MachineSet) => (ms.spec.replicas ?? 0) > 0 || (ms.status?.replicas ?? 0) > 0;

/**
 * Old MachineSets that still have Machines and whose change the updaters do not cover. A MachineSet older than an
 * expired spec.rollout.after is a replacement by definition; a second MachineSet with the MD's own template carries
 * no change, so folding it into the new one is not held back.
 */
export async function assessInPlaceOnly(input: AssessInput): Promise<InPlaceOnlyAssessment> {
  const { md, now } = input;
  const found = findNewAndOldMachineSets(
    md as unknown as MachineDeploymentLike,
    input.machineSets as unknown as MachineSetLike[],
    now,
  );
  const result: InPlaceOnlyAssessment = { names: new Set(), blocked: [] };
  const olds = (found.oldMSs as unknown as MachineSet[]).filter(hasReplicas);
  if (olds.length === 0) return result;
  const newMS = input.desiredNewMS(found.newMS as unknown as MachineSet | undefined);
  const rolloutAfter = md.spec.rollout?.after ? Date.parse(md.spec.rollout.after) : undefined;
  for (const oldMS of olds) {
    const name = oldMS.metadata.name ?? '';
    const subject = `MachineSet ${name}`;
    const created = Date.parse(oldMS.metadata.creationTimestamp ?? '');
    if (rolloutAfter !== undefined && rolloutAfter < now.getTime() && !(created >= rolloutAfter)) {
      result.names.add(name);
      result.blocked.push({
        reason: 'ReplacementRequested',
        subject,
        why: `spec.rollout.after (${md.spec.rollout?.after}) asks for a replacement`,
      });
      continue;
    }
    if (!found.upToDateResults.get(name)?.eligibleForInPlaceUpdate) continue;
    const coverage = input.coverage ? await input.coverage(oldMS, newMS) : undefined;
    if (coverage?.canUpdate) continue;
    result.names.add(name);
    if (!coverage || coverage.noUpdaters) result.blocked.push({ reason: 'NoUpdaters', subject });
    else
      result.blocked.push({
        reason: 'NotCoveredByUpdaters',
        subject,
        uncovered: coverage.uncovered,
        asked: coverage.asked,
      });
  }
  return result;
}
