import YAML from 'yaml';

export interface KubeconfigArgs {
  url: string;
  token: string;
  caData?: string;
  name?: string;
}

/** A kubeconfig with one cluster/user/context; `caData` is base64 PEM (certificate-authority-data). */
export function renderKubeconfig(a: KubeconfigArgs): string {
  const name = a.name ?? 'capi-ts';
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: a.url, ...(a.caData ? { 'certificate-authority-data': a.caData } : {}) } }],
    users: [{ name, user: { token: a.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
