// A compact history of a namespace's MachineSets and Machines, watched from the server, for failure messages: which
// MachineSet created or deleted a Machine, and what its spec, annotations and status were just before.
import { CLUSTER_API_VERSION, type Machine, type MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { KubeClient } from '@capi/controller-runtime';

export interface History {
  /** One line per event since the watch started, oldest first. */
  lines(): string[];
  stop(): void;
}

const shortAnnotations = (o: KubeObject) =>
  Object.entries(o.metadata.annotations ?? {})
    .filter(([k]) => k.includes('cluster.x-k8s.io'))
    .map(([k, v]) => `${k.replace(/^.*\//, '')}=${v.length > 40 ? `${v.slice(0, 40)}…` : v}`)
    .join(',');

function summary(kind: string, o: KubeObject): string {
  const owner = o.metadata.ownerReferences?.find((r) => r.controller)?.name ?? '-';
  const deleting = o.metadata.deletionTimestamp ? ' deleting' : '';
  if (kind === 'MachineSet') {
    const ms = o as MachineSet;
    return `rv=${o.metadata.resourceVersion} spec.replicas=${ms.spec.replicas} status.replicas=${ms.status?.replicas}${deleting} [${shortAnnotations(o)}]`;
  }
  const m = o as Machine;
  return `rv=${o.metadata.resourceVersion} owner=${owner} version=${m.spec.version}${deleting} [${shortAnnotations(o)}]`;
}

export async function watchHistory(c: KubeClient, ns: string): Promise<History> {
  const start = Date.now();
  const lines: string[] = [];
  const handles = await Promise.all(
    ['MachineSet', 'Machine'].map((kind) =>
      c.watch(CLUSTER_API_VERSION, kind, { namespace: ns }, (ev) => {
        const t = ((Date.now() - start) / 1000).toFixed(3);
        lines.push(`${t}s ${ev.type} ${kind} ${ev.object.metadata.name} ${summary(kind, ev.object)}`);
      }),
    ),
  );
  return {
    lines: () => [...lines],
    stop: () => handles.forEach((h) => h.stop()),
  };
}
