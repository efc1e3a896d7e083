// The scenarios of the shipped golden logs (see shared/conformance/rollout/README.md §1).
import { RolloutSimulationOptions } from './simulate';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => `m${from + k}`);

function rolling(replicas: number, maxSurge: number, maxUnavailable: number, inPlace: boolean, desired: string[]): RolloutSimulationOptions {
  return { strategy: 'RollingUpdate', replicas, maxSurge, maxUnavailable, inPlace, desiredMachineNames: desired };
}

export const rollingUpdateScenarios: RolloutSimulationOptions[] = [
  rolling(3, 1, 0, false, range(4, 6)),
  rolling(3, 0, 1, false, range(4, 6)),
  rolling(6, 3, 1, false, range(7, 12)),
  rolling(6, 1, 3, false, range(7, 12)),
  rolling(6, 10, 0, false, range(7, 12)),
  rolling(6, 0, 10, false, range(7, 12)),
  rolling(3, 1, 0, true, ['m1', 'm2', 'm4']),
  rolling(3, 0, 1, true, range(1, 3)),
  rolling(6, 3, 1, true, range(1, 6)),
  rolling(6, 1, 3, true, range(1, 6)),
  rolling(6, 10, 0, true, ['m1', 'm2', 'm3', 'm4', 'm5', 'm7']),
  rolling(6, 0, 10, true, range(1, 6)),
];

export const onDeleteScenarios: RolloutSimulationOptions[] = [
  { strategy: 'OnDelete', replicas: 3, maxUserUnavailable: 1, desiredMachineNames: range(4, 6) },
  { strategy: 'OnDelete', replicas: 6, maxUserUnavailable: 2, desiredMachineNames: range(7, 12) },
  {
    name: '6 Replicas, maxUserUnavailable 1, scale up to 9',
    strategy: 'OnDelete',
    replicas: 9,
    maxUserUnavailable: 1,
    initialMachineSets: [
      { name: 'ms1', failureDomain: 'v1', replicas: 3, machines: range(4, 6) },
      { name: 'ms2', failureDomain: 'v2', replicas: 3, machines: range(7, 9) },
    ],
    desiredMachineNames: range(7, 15),
  },
];
