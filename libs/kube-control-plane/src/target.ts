// Which API server a test runs against, chosen for a whole test run by ENVTEST_TARGET.

/**
 * Which API server backs a test: `embedded` (our ApiServer, in-process) or `kube` (etcd + kube-apiserver from
 * KUBEBUILDER_ASSETS, as controller-runtime's envtest runs them). The same suites run on both.
 */
export type EnvtestTarget = 'embedded' | 'kube';

/** ENVTEST_TARGET picks the target of every startEnvtest() that doesn't name one (default embedded). */
export function envtestTarget(env: NodeJS.ProcessEnv = process.env): EnvtestTarget {
  const t = env.ENVTEST_TARGET || 'embedded';
  if (t !== 'embedded' && t !== 'kube') throw new Error(`ENVTEST_TARGET=${t}: want embedded or kube`);
  return t;
}
