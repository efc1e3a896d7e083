// What the view shows, kept from informer events: the Cluster API objects by kind, and the rollout counts fed by the
// Machine events. Listeners hear about changes coalesced per turn of the event loop (a list of 100 Machines is one
// change), so browsers get one update per burst, never a poll.
import type { Cluster, KubeadmControlPlane, Machine, MachineDeployment, MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { RolloutCounter, type RolloutCounterOptions } from './rollout-counts';

export const VIEW_KINDS = ['Cluster', 'KubeadmControlPlane', 'MachineDeployment', 'MachineSet', 'Machine'] as const;
export type ViewKind = (typeof VIEW_KINDS)[number];

export interface ViewObjects {
  clusters: Cluster[];
  controlPlanes: KubeadmControlPlane[];
  machineDeployments: MachineDeployment[];
  machineSets: MachineSet[];
  machines: Machine[];
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

export class ObjectStore {
  private readonly byKind = new Map<ViewKind, Map<string, KubeObject>>(VIEW_KINDS.map((k) => [k, new Map()]));
  private readonly listeners = new Set<() => void>();
  private pending = false;
  readonly counts: RolloutCounter;

  constructor(
    private readonly now: () => number = Date.now,
    counterOptions?: RolloutCounterOptions,
  ) {
    this.counts = new RolloutCounter(counterOptions);
  }

  /** An object was added or changed; `baseline` while its informer has not synced yet (see RolloutCounter). */
  upsert(kind: ViewKind, obj: KubeObject, baseline = false): void {
    this.byKind.get(kind)!.set(keyOf(obj), obj);
    if (kind === 'Machine') this.counts.observe(obj as Machine, this.now(), baseline);
    this.changed();
  }

  remove(kind: ViewKind, obj: KubeObject): void {
    this.byKind.get(kind)!.delete(keyOf(obj));
    if (kind === 'Machine') this.counts.forget(obj as Machine, this.now());
    this.changed();
  }

  objects(): ViewObjects {
    const list = <T>(k: ViewKind) => [...this.byKind.get(k)!.values()] as T[];
    return {
      clusters: list('Cluster'),
      controlPlanes: list('KubeadmControlPlane'),
      machineDeployments: list('MachineDeployment'),
      machineSets: list('MachineSet'),
      machines: list('Machine'),
    };
  }

  /** Calls `listener` after each burst of changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    if (this.pending) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      for (const l of [...this.listeners]) l();
    });
  }
}
