// CRDs on kube-apiserver: applied, then awaited until Established and served, as controller-runtime's envtest
// (pkg/envtest/crd.go WaitForCRDs) waits before a suite starts.
import { requestWithToken, type KubeApiServerEndpoint } from './kube-apiserver';

/** How long CRDs may take to be Established and served. */
export const CRDS_READY_TIMEOUT_MS = 30_000;
/** How often a CRD's state is read again while waiting. */
const CRD_POLL_INTERVAL_MS = 100;

interface CrdLike {
  metadata: { name: string };
  spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] };
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, CRD_POLL_INTERVAL_MS));
  }
}

export async function installCrds(
  ep: KubeApiServerEndpoint,
  crds: object[],
  timeoutMs = CRDS_READY_TIMEOUT_MS,
): Promise<void> {
  for (const crd of crds as CrdLike[]) {
    const r = await requestWithToken(
      ep,
      'PATCH',
      `${CRDS}/${crd.metadata.name}?fieldManager=envtest&force=true`,
      crd,
      'application/apply-patch+yaml',
    );
    if (r.status >= 300) throw new Error(`installing CRD ${crd.metadata.name}: ${r.status} ${r.body}`);
  }
  for (const crd of crds as CrdLike[]) {
    await waitFor(
      async () => {
        const r = await requestWithToken(ep, 'GET', `${CRDS}/${crd.metadata.name}`);
        const conditions: { type: string; status: string }[] = JSON.parse(r.body).status?.conditions ?? [];
        return r.status === 200 && conditions.some((c) => c.type === 'Established' && c.status === 'True');
      },
      `CRD ${crd.metadata.name} Established`,
      timeoutMs,
    );
    for (const v of crd.spec.versions.filter((x) => x.served)) {
      const path = `/apis/${crd.spec.group}/${v.name}/${crd.spec.names.plural}?limit=1`;
      await waitFor(async () => (await requestWithToken(ep, 'GET', path)).status === 200, `${path} served`, timeoutMs);
    }
  }
}
