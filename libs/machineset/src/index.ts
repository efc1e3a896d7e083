// MachineDeployment rollout planner (pure) and its golden-log simulation.
export * from './rollout';
