// OnDelete planning (upstream: machinedeployment_rollout_ondelete.go). Machines are replaced only when a user
// deletes them, so the planner only aligns replicas; it never uses in-place updates.
import { compareByCreationTimestamp, specReplicas, statusReplicas, totalSpecReplicas } from './mdutil';
import type { RolloutPlanner } from './planner';
import { reconcileNewMachineSet } from './rollingupdate';
import { nameOf } from './types';

export function runOnDelete(p: RolloutPlanner): void {
  reconcileNewMachineSet(p);
  reconcileOldMachineSetsOnDelete(p);
}

function reconcileOldMachineSetsOnDelete(p: RolloutPlanner): void {
  const oldMachinesCount = totalSpecReplicas(p.oldMSs);
  if (oldMachinesCount === 0 || !p.newMS) return;

  // More machines than md.spec.replicas, e.g. after the MD was scaled down.
  const newMSReplicas = p.scaleIntents.get(nameOf(p.newMS)) ?? specReplicas(p.newMS);
  let totalScaleDown = Math.max(oldMachinesCount + newMSReplicas - (p.md.spec.replicas ?? 0), 0);

  p.oldMSs.sort(compareByCreationTimestamp);

  // Drop spec.replicas that have no machine any more (a user deleted it); this also counts towards totalScaleDown.
  for (const oldMS of p.oldMSs) {
    if (specReplicas(oldMS) <= 0) continue;
    const scaleDown = Math.max(specReplicas(oldMS) - statusReplicas(oldMS), 0);
    if (scaleDown > 0) {
      p.addNote(oldMS, 'scale down to align to existing Machines');
      p.scaleIntents.set(nameOf(oldMS), Math.max(specReplicas(oldMS) - scaleDown, 0));
      totalScaleDown -= scaleDown;
    }
  }

  for (const oldMS of p.oldMSs) {
    if (totalScaleDown <= 0) break;
    const intent = p.scaleIntents.get(nameOf(oldMS)) ?? specReplicas(oldMS);
    if (intent <= 0) continue;
    const scaleDown = Math.min(intent, totalScaleDown);
    if (scaleDown > 0) {
      // Note: like upstream, the new intent is computed from spec.replicas, not from an earlier intent.
      p.addNote(oldMS, 'scale down to align MachineSet spec.replicas to MachineDeployment spec.replicas');
      p.scaleIntents.set(nameOf(oldMS), Math.max(specReplicas(oldMS) - scaleDown, 0));
      totalScaleDown -= scaleDown;
    }
  }
}
