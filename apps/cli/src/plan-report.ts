// What `rollout plan` prints, pure: per Machine "in place by <updaters>" / "replaced because <reasons>", the first
// step the MachineDeployment controller would take, and the simulated sequence of steps with a legend of its names.
import type { InitialMachineSet } from '@capi/machineset';

export interface MachineOutcome {
  machine: string;
  machineSet: string;
  outcome: { type: 'inPlace'; updaters: string[] } | { type: 'replaced'; reasons: string[] } | { type: 'upToDate' };
}

export interface FirstStep {
  /** MachineSet name → replicas now → planned replicas, and why. */
  machineSets: {
    name: string;
    current?: number;
    planned?: number;
    isNew: boolean;
    created: boolean;
    notes: string[];
  }[];
}

export function formatOutcome(o: MachineOutcome): string {
  const what = o.outcome;
  const text =
    what.type === 'inPlace'
      ? `in place by ${what.updaters.length ? what.updaters.join(', ') : 'the registered updaters'}`
      : what.type === 'replaced'
        ? `replaced because ${what.reasons.length ? what.reasons.join('; ') : 'no updater covers the change'}`
        : 'up to date (already on the new MachineSet)';
  return `Machine ${o.machine} (MachineSet ${o.machineSet}): ${text}`;
}

export function formatFirstStep(step: FirstStep): string[] {
  return step.machineSets.map((ms) => {
    const replicas =
      ms.planned === undefined || ms.planned === ms.current
        ? `replicas ${ms.current ?? 0}`
        : `replicas ${ms.current ?? 0} → ${ms.planned}`;
    const label = ms.created ? 'new MachineSet (to create)' : ms.isNew ? 'new MachineSet' : 'old MachineSet';
    return `${label} ${ms.name}: ${replicas}${ms.notes.length ? ` (${ms.notes.join('; ')})` : ''}`;
  });
}

/**
 * The simulation's starting MachineSets in its own names (ms1.., Machines m1..; upstream's golden-log format keys the
 * template by failureDomain: "v1" old, "v2" the MachineDeployment's), and the legend back to the real names.
 */
export function simulationInput(
  machineSets: { name: string; replicas: number; machines: string[]; upToDate: boolean }[],
): { initial: InitialMachineSet[]; legend: string[] } {
  const initial: InitialMachineSet[] = [];
  const legend: string[] = [];
  let machineNo = 0;
  machineSets.forEach((ms, i) => {
    const simName = `ms${i + 1}`;
    const names = ms.machines.map(() => `m${++machineNo}`);
    initial.push({ name: simName, failureDomain: ms.upToDate ? 'v2' : 'v1', replicas: ms.replicas, machines: names });
    legend.push(`${simName} = MachineSet ${ms.name}${ms.upToDate ? ' (up to date)' : ''}`);
    ms.machines.forEach((m, k) => legend.push(`  ${names[k]} = Machine ${m}`));
  });
  legend.push(`ms${machineSets.length + 1} and later, m${machineNo + 1} and later = created during the rollout`);
  return { initial, legend };
}
