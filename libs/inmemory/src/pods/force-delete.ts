// Deleting a Pod at once (gracePeriodSeconds=0), as a kubelet does when its containers have stopped and as the Pod
// garbage collector does for a Pod whose Node is gone: a bound Pod deleted otherwise only starts terminating.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { ObjectRef } from '@capi/controller-runtime';

/** Deletes a Pod at once, if it is still the one with `uid`; a Pod gone already is no error. */
export type ForceDeletePod = (ref: ObjectRef, uid?: string) => Promise<void>;

export function podForceDeleter(kubeconfig: string): ForceDeletePod {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  return async (ref, uid) => {
    try {
      await core.deleteNamespacedPod({
        name: ref.name,
        namespace: ref.namespace ?? 'default',
        gracePeriodSeconds: 0,
        body: { gracePeriodSeconds: 0, ...(uid ? { preconditions: { uid } } : {}) },
      });
    } catch (e) {
      const code = (e as { code?: number }).code;
      // Gone already, or replaced by a Pod of the same name.
      if (code !== 404 && code !== 409) throw e;
    }
  };
}
