// The manager's identity in tests: on the kube target, the ServiceAccount of deploy/rbac with exactly the permissions
// its ClusterRole and leader-election Role grant (applied from the files `kubectl apply -k deploy/rbac` applies), and
// a token kube-apiserver issues for it (TokenRequest, as the kubelet's projected token). The embedded API server has
// one bearer token and no authorization, so there it is the admin token.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import type { Envtest } from '@capi/envtest';

const RBAC_DIR = resolve(__dirname, '../../../../deploy/rbac');

/** The ServiceAccount deploy/rbac binds the manager's roles to. */
export const MANAGER_SERVICE_ACCOUNT = { namespace: 'capi-system', name: 'capi-manager' };

/** The objects of deploy/rbac, in its kustomization's order. */
export function deployRbacObjects(): KubeObject[] {
  const kustomization = parse(readFileSync(join(RBAC_DIR, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  return kustomization.resources.flatMap((file) =>
    parseAllDocuments(readFileSync(join(RBAC_DIR, file), 'utf8'))
      .map((d) => d.toJS() as KubeObject | null)
      .filter((o): o is KubeObject => !!o),
  );
}

/**
 * A bearer token for the manager. On kube: creates the ServiceAccount's namespace, applies deploy/rbac and issues a
 * one-hour token for the ServiceAccount. On embedded: the admin token.
 */
export async function managerToken(env: Envtest, admin: Client): Promise<string> {
  if (env.target !== 'kube') return env.token;
  const { namespace, name } = MANAGER_SERVICE_ACCOUNT;
  if (!(await admin.tryGet({ apiVersion: 'v1', kind: 'Namespace', name: namespace })))
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (const obj of deployRbacObjects()) await admin.apply(obj, { fieldManager: 'envtest', force: true });
  const issued = await admin.createSubresource<{ status?: { token?: string } }>(
    { apiVersion: 'v1', kind: 'ServiceAccount', namespace, name },
    'token',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {}, spec: { expirationSeconds: 3600 } },
  );
  const token = issued.status?.token;
  if (!token) throw new Error(`no token issued for ServiceAccount ${namespace}/${name}`);
  return token;
}
