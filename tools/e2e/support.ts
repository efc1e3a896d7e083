// What the end-to-end specs on the embedded manager share: reading conditions and Machines as a user would, and
// polling until a list of problems is empty (the timeout error names what was still wrong).
import { CLUSTER_API_VERSION, type Condition, type Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';

export const conditionOf = (
  o: { status?: { conditions?: unknown } } | undefined,
  type: string,
): Condition | undefined => ((o?.status?.conditions ?? []) as Condition[]).find((c) => c.type === type);

export async function listMachines(client: Client, namespace: string): Promise<Machine[]> {
  return (await client.list<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace })).items;
}

/** Creates a Namespace with `labels` (an ExtensionConfig's namespaceSelector matches them). */
export async function createNamespace(client: Client, name: string, labels?: Record<string, string>): Promise<void> {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } as KubeObject);
}

/**
 * Polls `check` until it reports no problems and returns its value; on timeout the error lists the problems of the
 * last poll (so a failed wait says which object was not there yet, and why).
 */
export async function untilNoProblems<T>(
  check: () => Promise<{ problems: string[]; value: T }>,
  what: string,
  timeoutMs: number,
  intervalMs = 500,
): Promise<T> {
  return eventually(
    async () => {
      const { problems, value } = await check();
      if (problems.length > 0) throw new Error(`\n  ${problems.join('\n  ')}`);
      return { value };
    },
    { message: what, timeoutMs, intervalMs },
  ).then((r) => r.value);
}
