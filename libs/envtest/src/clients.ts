// Clients for a test API server, from an Envtest or any kubeconfig text (e.g. a workload cluster's Secret).
import { KubeConfig } from '@kubernetes/client-node';
import { CountingClientMetrics, KubeClient } from '@capi/controller-runtime';

export type KubeconfigSource = { kubeconfig: string } | string;

/** A fresh KubeConfig loaded from the source's kubeconfig YAML. */
export function kubeConfigFor(source: KubeconfigSource): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(typeof source === 'string' ? source : source.kubeconfig);
  return kc;
}

/** A KubeClient for the source's kubeconfig; the caller closes it (before stopping the server). */
export function clientFor(source: KubeconfigSource): KubeClient {
  return new KubeClient(kubeConfigFor(source));
}

/**
 * A KubeClient whose requests are counted as it sends them: counts writes on either target (the kube target has no
 * per-request counters of ours), for tests where this client is the only writer.
 */
export function countingClientFor(source: KubeconfigSource): { client: KubeClient; requests: CountingClientMetrics } {
  const requests = new CountingClientMetrics();
  return { client: new KubeClient(kubeConfigFor(source), { metrics: requests }), requests };
}
