// Reads the content of KubeadmConfig files that come from Secrets (`files[].contentFrom`), for the bootstrap data and
// for in-place updates of `spec.files` on the simulated host.
import type { KubeadmConfigSpec } from '@capi/api';
import type { Client } from '@capi/controller-runtime';
import { secretRefsOf } from './cloud-init';

/** Content of `files[].contentFrom` Secrets by file path (absent entries: Secret or key missing). */
export async function resolveSecretFiles(
  client: Client,
  namespace: string,
  spec: KubeadmConfigSpec,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const ref of secretRefsOf(spec)) {
    const secret = await client.tryGet({ apiVersion: 'v1', kind: 'Secret', namespace, name: ref.name });
    const value = (secret?.data as Record<string, string> | undefined)?.[ref.key];
    if (value !== undefined) out[ref.path] = Buffer.from(value, 'base64').toString('utf8');
  }
  return out;
}
