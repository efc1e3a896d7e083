// CRDs on a real kube-apiserver: applied, then awaited until Established and served, as envtest's
// WaitForCRDs polls discovery before a suite starts.
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type KubeObject } from '@capi/controller-runtime';
import { eventually } from './polling';

/** How long CRDs may take to be Established and served. */
export const CRDS_READY_TIMEOUT_MS = 30_000;

interface CrdLike extends KubeObject {
  spec: { group: string; names: { plural: string; kind: string }; scope: string; versions: { name: string; served: boolean }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

export async function installCrds(kubeconfig: string, crds: object[]): Promise<void> {
  if (!crds.length) return;
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  const client = new KubeClient(kc);
  try {
    for (const crd of crds as CrdLike[]) {
      await client.apply(structuredClone(crd), { fieldManager: 'envtest', force: true });
    }
    for (const crd of crds as CrdLike[]) {
      const name = crd.metadata.name!;
      await eventually(async () => {
        const got = await client.get<CrdLike>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });
        return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
      }, { message: `CRD ${name} Established`, timeoutMs: CRDS_READY_TIMEOUT_MS, intervalMs: 100 });
      for (const v of crd.spec.versions.filter((x) => x.served)) {
        const apiVersion = `${crd.spec.group}/${v.name}`;
        await eventually(async () => (await client.list(apiVersion, crd.spec.names.kind, { limit: 1 })) !== undefined, {
          message: `${crd.spec.names.plural}.${apiVersion} served`, timeoutMs: CRDS_READY_TIMEOUT_MS, intervalMs: 100,
        });
      }
    }
  } finally {
    client.close();
  }
}
