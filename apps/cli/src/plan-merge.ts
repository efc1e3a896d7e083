// How `rollout plan` reads FILE: a JSON merge patch over the live object (spec, labels, annotations), so a partial
// manifest works. Members FILE leaves out are kept (an undefined member must not reach mergePatch, which would set it).
import { mergePatch, type KubeObject } from '@capi/apimachinery';

export function mergeOverLive<T extends KubeObject>(live: T, change: KubeObject): T {
  const metadata: Record<string, unknown> = {};
  if (change.metadata.labels !== undefined) metadata.labels = change.metadata.labels;
  if (change.metadata.annotations !== undefined) metadata.annotations = change.metadata.annotations;
  return mergePatch(live, { spec: change.spec ?? {}, metadata }) as T;
}
