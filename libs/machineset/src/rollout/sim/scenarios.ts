// The scenarios of the vendored golden logs (../testdata), as upstream's Test_RollingUpdateSequences and
// Test_OnDeleteSequences define them (core/reconcilers/machinedeployment/
// machinedeployment_rollout_{rollingupdate,ondelete}_test.go).
import { RolloutSimulationOptions } from './simulate';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => `m${from + k}`);

function rolling(
  replicas: number,
  maxSurge: number,
  maxUnavailable: number,
  inPlace: boolean,
  desired: string[],
): RolloutSimulationOptions {
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

const midRollout = (oldMachines: string[], newMachines: string[]) => [
  { name: 'ms1', failureDomain: 'v1', replicas: oldMachines.length, machines: oldMachines },
  { name: 'ms2', failureDomain: 'v2', replicas: newMachines.length, machines: newMachines },
];

/**
 * Upstream scenarios whose golden files are held out of ../testdata (MD scaled or changed in the middle of a rollout).
 * Definitions follow upstream's sequence test; they are compared when their golden file is present.
 */
export const heldOutScenarios: RolloutSimulationOptions[] = [
  {
    name: 'Regular rollout, 6 Replicas, maxSurge 3, maxUnavailable 1, scale up to 12',
    strategy: 'RollingUpdate',
    replicas: 12,
    maxSurge: 3,
    maxUnavailable: 1,
    inPlace: false,
    tolerateMaxUnavailableBreach: true,
    initialMachineSets: midRollout(range(4, 6), range(7, 9)),
    desiredMachineNames: range(7, 18),
  },
  {
    name: 'Regular rollout, 12 Replicas, maxSurge 3, maxUnavailable 1, scale down to 6',
    strategy: 'RollingUpdate',
    replicas: 6,
    maxSurge: 3,
    maxUnavailable: 1,
    inPlace: false,
    tolerateMaxSurgeBreach: true,
    initialMachineSets: midRollout(range(4, 12), range(13, 15)),
    desiredMachineNames: range(13, 18),
  },
  {
    name: 'Regular rollout, 6 Replicas, maxSurge 3, maxUnavailable 1, change spec',
    strategy: 'RollingUpdate',
    replicas: 6,
    maxSurge: 3,
    maxUnavailable: 1,
    inPlace: false,
    mdTemplateVersion: 'v3',
    initialMachineSets: midRollout(range(4, 6), range(7, 9)),
    desiredMachineNames: range(10, 15),
  },
  {
    name: 'In-place rollout, 6 Replicas, maxSurge 3, MaxUnavailable 1, scale up to 12',
    strategy: 'RollingUpdate',
    replicas: 12,
    maxSurge: 3,
    maxUnavailable: 1,
    inPlace: true,
    tolerateMaxUnavailableBreach: true,
    machineUID: 6,
    initialMachineSets: midRollout(range(4, 6), range(1, 3)),
    desiredMachineNames: range(1, 12),
  },
  {
    name: 'In-place rollout, 12 Replicas, maxSurge 3, MaxUnavailable 1, scale down to 6',
    strategy: 'RollingUpdate',
    replicas: 6,
    maxSurge: 3,
    maxUnavailable: 1,
    inPlace: true,
    tolerateMaxSurgeBreach: true,
    machineUID: 12,
    initialMachineSets: midRollout(range(4, 12), range(1, 3)),
    desiredMachineNames: range(1, 6),
  },
  {
    name: 'In-place rollout, 6 Replicas, maxSurge 3, MaxUnavailable 1, change spec',
    strategy: 'RollingUpdate',
    replicas: 6,
    maxSurge: 3,
    maxUnavailable: 1,
    inPlace: true,
    mdTemplateVersion: 'v3',
    machineUID: 6,
    initialMachineSets: midRollout(range(4, 6), range(1, 3)),
    desiredMachineNames: range(1, 6),
  },
  {
    name: '12 Replicas, maxUserUnavailable 1,  scale down to 6',
    strategy: 'OnDelete',
    replicas: 6,
    maxUserUnavailable: 1,
    initialMachineSets: midRollout(range(4, 12), range(13, 15)),
    desiredMachineNames: range(13, 18),
  },
  {
    // Unlike the RollingUpdate "change spec" scenarios, upstream starts this one with the v3 MachineSet already there (empty).
    name: '6 Replicas, maxUserUnavailable 1, change spec',
    strategy: 'OnDelete',
    replicas: 6,
    maxUserUnavailable: 1,
    mdTemplateVersion: 'v3',
    machineUID: 9,
    initialMachineSets: [
      ...midRollout(range(4, 6), range(7, 9)),
      { name: 'ms3', failureDomain: 'v3', replicas: 0, machines: [] },
    ],
    desiredMachineNames: range(10, 15),
  },
];
