import { ownerProblems } from './flow';

const md = (generation: number, status: Record<string, number>) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachineDeployment',
  metadata: { name: 'md', generation },
  status,
});

describe('ownerProblems', () => {
  it('is empty once the current generation is observed and every counter is at the wanted replicas', () => {
    expect(
      ownerProblems(
        'MachineDeployment',
        md(2, { observedGeneration: 2, replicas: 3, readyReplicas: 3, upToDateReplicas: 3, availableReplicas: 3 }),
        3,
      ),
    ).toEqual([]);
  });

  it('reports an unobserved generation (a change the controller has not seen yet) and each counter off target', () => {
    expect(
      ownerProblems(
        'MachineDeployment',
        md(3, { observedGeneration: 2, replicas: 4, readyReplicas: 3, upToDateReplicas: 1, availableReplicas: 3 }),
        3,
      ),
    ).toEqual([
      'MachineDeployment md: generation 3 not observed yet',
      'MachineDeployment md: status.replicas=4 (want 3)',
      'MachineDeployment md: status.upToDateReplicas=1 (want 3)',
    ]);
  });

  it('reports a missing object and missing counters', () => {
    expect(ownerProblems('KubeadmControlPlane', undefined, 3)).toEqual(['KubeadmControlPlane not found']);
    expect(ownerProblems('KubeadmControlPlane', md(1, {}), 1)).toContain(
      'KubeadmControlPlane md: status.replicas=unset (want 1)',
    );
  });
});
