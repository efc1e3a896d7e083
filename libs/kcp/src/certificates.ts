// The cluster certificates of a KCP (upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/
// kubeadmcontrolplane_controller.go reconcileClusterCertificates, ensureCertificatesOwnerRef): generated until the
// control plane is initialized, only looked up afterwards (certificate authorities are never re-generated), and
// owned by the KCP.
import { setCondition, type Cluster, type ConditionInput, type KubeadmControlPlane } from '@capi/api';
import { ensureOwnerRef, sameOwnerRef, type OwnerReference, type PassiveClock } from '@capi/apimachinery';
import {
  CLUSTER_SECRET_TYPE,
  certificatesForInitialControlPlane,
  lookup,
  lookupOrGenerate,
  type ClusterCertificate,
} from '@capi/certs';
import { refOf, type Client } from '@capi/controller-runtime';
import { KCP_INITIALIZED_CONDITION } from './available';
import { kcpOwnerReference } from './desired';
import { isEtcdManaged } from './health';

export const CERTIFICATES_AVAILABLE_CONDITION = 'CertificatesAvailable';

/**
 * The owner references a certificate Secret should have (upstream ensureCertificatesOwnerRef), or undefined when
 * they are right: a KCP controller is brought up to date; a cluster.x-k8s.io/secret Secret (e.g. created by a
 * KubeadmConfig) changes controller to this KCP; other Secrets (user-supplied) keep their owners.
 */
export function certificateOwnerReferences(
  secret: { type?: unknown; metadata: { ownerReferences?: OwnerReference[] } },
  owner: OwnerReference,
): OwnerReference[] | undefined {
  const original = secret.metadata.ownerReferences ?? [];
  let refs = original;
  const controller = refs.find((r) => r.controller);
  if (controller?.kind === 'KubeadmControlPlane') refs = ensureOwnerRef(refs, owner);
  if (secret.type === CLUSTER_SECRET_TYPE) {
    if (controller) refs = refs.filter((r) => !sameOwnerRef(r, controller));
    refs = ensureOwnerRef(refs, owner);
  }
  return JSON.stringify(refs) === JSON.stringify(original) ? undefined : refs;
}

function missingMessage(missing: readonly string[]): string {
  return missing.length === 1
    ? `Cluster certificate for ${missing[0]} is not available, please check cluster certificate secrets`
    : `Cluster certificates for ${missing.join(', ')} are not available, please check cluster certificate secrets`;
}

const internalError: ConditionInput = {
  type: CERTIFICATES_AVAILABLE_CONDITION,
  status: 'Unknown',
  reason: 'InternalError',
  message: 'Please check controller logs for errors',
};

export interface CertificatesOutcome {
  /** The CertificatesAvailable condition to set. */
  condition: ConditionInput;
  /** The certificates as read or generated (their key pairs), when the lookup succeeded. */
  certificates?: ClusterCertificate[];
  /** Why the reconcile must stop with an error (the condition says InternalError). */
  error?: Error;
}

/** Looks up or generates the certificates of `kcp`'s cluster and makes KCP their owner. */
export async function reconcileClusterCertificates(
  client: Client,
  kcp: KubeadmControlPlane,
  cluster: Cluster,
  cachingClient?: Client,
): Promise<CertificatesOutcome> {
  const key = { namespace: cluster.metadata.namespace!, name: cluster.metadata.name! };
  const certificates = certificatesForInitialControlPlane(!isEtcdManaged(kcp));
  const owner = kcpOwnerReference(kcp, true);
  const initialized = kcp.status?.conditions?.some((c) => c.type === KCP_INITIALIZED_CONDITION && c.status === 'True');
  try {
    if (!initialized) await lookupOrGenerate(client, key, certificates, owner, cachingClient);
    else await lookup(client, key, certificates, cachingClient);
  } catch (e) {
    const what = initialized ? 'look up' : 'look up or create';
    return {
      condition: internalError,
      error: new Error(`error in ${what} cluster certificates: ${(e as Error).message}`, { cause: e }),
    };
  }
  const missing = certificates.filter((c) => !c.secret).map((c) => c.purpose);
  if (missing.length > 0)
    return {
      condition: {
        type: CERTIFICATES_AVAILABLE_CONDITION,
        status: 'False',
        reason: 'NotAvailable',
        message: missingMessage(missing),
      },
      certificates,
    };
  try {
    for (const c of certificates) {
      const refs = c.secret && certificateOwnerReferences(c.secret, owner);
      if (refs) await client.patch(refOf(c.secret!), 'merge', { metadata: { ownerReferences: refs } });
    }
  } catch (e) {
    return {
      condition: internalError,
      error: new Error(`error in ensuring cluster certificates ownership: ${(e as Error).message}`, { cause: e }),
    };
  }
  return { condition: { type: CERTIFICATES_AVAILABLE_CONDITION, status: 'True', reason: 'Available' }, certificates };
}

/** The KCP's conditions with `condition` set (for a reconcile that stops before its status update). */
export const withCondition = (kcp: KubeadmControlPlane, condition: ConditionInput, clock: PassiveClock) =>
  setCondition(kcp.status?.conditions, { ...condition, observedGeneration: kcp.metadata.generation }, clock);
