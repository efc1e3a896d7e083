import { workloadLine, workloadProblems } from './workload';

describe('demo: workload kube-system', () => {
  const settled = {
    kubeadmConfig: { kubernetesVersion: 'v1.31.1', apiVersion: 'kubeadm.k8s.io/v1beta4' },
    kubeProxyImage: 'registry.k8s.io/kube-proxy:v1.31.1',
    corednsImage: 'registry.k8s.io/coredns/coredns:v1.11.3',
  };
  it('settled when kubeadm-config and kube-proxy carry the version', () => {
    expect(workloadProblems(settled, 'v1.31.1')).toEqual([]);
    expect(workloadLine(settled).split('\n')).toEqual([
      'workload kube-system: kubeadm-config v1.31.1 (kubeadm.k8s.io/v1beta4), kube-proxy registry.k8s.io/kube-proxy:v1.31.1',
      '   workload coredns: registry.k8s.io/coredns/coredns:v1.11.3',
    ]);
    for (const l of workloadLine(settled).split('\n')) expect(`   ${l}`.length).toBeLessThanOrEqual(120);
  });
  it('names what lags, what is missing and what cannot be read', () => {
    expect(workloadProblems(settled, 'v1.31.2')).toEqual([
      'workload kubeadm-config kubernetesVersion=v1.31.1 (want v1.31.2)',
      'workload kube-proxy image registry.k8s.io/kube-proxy:v1.31.1 (want tag v1.31.2)',
    ]);
    expect(workloadProblems({}, 'v1.31.2')).toEqual([
      'workload kubeadm-config kubernetesVersion=missing (want v1.31.2)',
      'workload kube-proxy image missing (want tag v1.31.2)',
    ]);
    expect(workloadProblems({ error: 'connection refused' }, 'v1.31.2')).toEqual([
      'workload cluster kube-system not readable: connection refused',
    ]);
  });
});

describe('demo: the sample workload', () => {
  const state = (ready: number) => ({
    kubeadmConfig: { kubernetesVersion: 'v1.31.1', apiVersion: 'kubeadm.k8s.io/v1beta4' },
    kubeProxyImage: 'registry.k8s.io/kube-proxy:v1.31.1',
    corednsImage: 'registry.k8s.io/coredns/coredns:v1.11.3',
    sample: { replicas: 3, ready, nodes: ['n1', 'n2'] },
  });
  it('is settled once every replica is ready again, and shows where it runs', () => {
    expect(workloadProblems(state(3), 'v1.31.1')).toEqual([]);
    expect(workloadProblems(state(2), 'v1.31.1')).toEqual(['sample workload 2/3 ready']);
    expect(workloadLine(state(3)).split('\n')[2]).toBe('   sample workload: 3/3 ready on n1, n2');
  });
});
