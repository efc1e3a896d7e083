// What Cluster API's managers keep of the management cluster's Secrets and ConfigMaps (upstream core/setup/setup.go and
// controlplane/kubeadm/setup/setup.go ManagerCacheOptions, ManagerClientOptions): the manager's client reads both kinds
// from the API; its cache holds only the Secrets labelled with a cluster name, without managedFields, and keeps the
// data of Cluster API's own Secrets (`<cluster>-<purpose>`) only. The secret-caching client reads those.
import { CLUSTER_NAME_LABEL } from '@capi/api';
import { stripManagedFields, type KubeObject } from '@capi/apimachinery';
import { kindKey, type ByObject } from '@capi/controller-runtime';
import { hasPurposeSuffix } from './cluster-certificates';

export const SECRET_KIND = kindKey('v1', 'Secret');
export const CONFIG_MAP_KIND = kindKey('v1', 'ConfigMap');

export interface ManagerSecretCacheOptions {
  cacheByObject: Record<string, ByObject>;
  clientDisableFor: string[];
}

/** A cached Secret: no managedFields; data only for a `<cluster>-<purpose>` name (upstream's Transform). */
export function transformCachedSecret(secret: KubeObject): KubeObject {
  const out = stripManagedFields(secret);
  if (hasPurposeSuffix(secret.metadata.name ?? '')) return out;
  const { data: _data, ...rest } = out as KubeObject & { data?: unknown };
  return rest;
}

/** ControllerRuntimeModule / Manager options for upstream's caching of Secrets and ConfigMaps. */
export function managerSecretCacheOptions(): ManagerSecretCacheOptions {
  return {
    cacheByObject: { [SECRET_KIND]: { labelSelector: CLUSTER_NAME_LABEL, transform: transformCachedSecret } },
    clientDisableFor: [CONFIG_MAP_KIND, SECRET_KIND],
  };
}
