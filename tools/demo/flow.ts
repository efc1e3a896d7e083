// The demo flow against any API server the manager reconciles: create a cluster (KCP + MachineDeployment on the
// in-memory provider), wait until every Machine is Running and Ready, change the version (in place), then the VM
// image (a rollout), printing each Machine's progress from a watch, and report what happened to every Machine.
import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL, CONTROLPLANE_API_VERSION, type Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { isAlreadyExists, isGone, type Client, type WatchHandle } from '@capi/controller-runtime';
import { kubeconfigSecretClientProvider } from '@capi/clustercache';
import {
  DEFAULT_DEMO,
  createDemoCluster,
  infraTemplatePatch,
  machineTemplateObject,
  names,
  versionPatch,
  type DemoSpec,
} from './objects';
import {
  ProgressTracker,
  controlPlaneHealth,
  machineProblems,
  outcomeProblems,
  renderSummary,
  stepOutcome,
  type OutcomeRow,
} from './progress';
import { deleteClusterAndWait, TeardownError } from './teardown';
import { readWorkloadKubeadmState, workloadLine, workloadProblems, type WorkloadKubeadmState } from './workload';

export interface DemoOptions {
  client: Client;
  spec?: Partial<DemoSpec>;
  /** Where progress and the summary go (default: stdout). */
  out?: (line: string) => void;
  /** How long each phase (create, in-place, rollout) may take to settle (default 5 minutes). */
  phaseTimeoutMs?: number;
  /** How often the settle condition is evaluated (default 500 ms). */
  pollMs?: number;
  /** Leave the cluster in place at the end instead of deleting it (default false). */
  keep?: boolean;
}

export interface DemoResult {
  ok: boolean;
  rows: OutcomeRow[];
  /** Outcome or condition violations; empty when ok. */
  problems: string[];
}

export class DemoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoError';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Replica counters of a KCP or MachineDeployment that are settled at `want` replicas. */
export function ownerProblems(kind: string, obj: KubeObject | undefined, want: number): string[] {
  if (!obj) return [`${kind} not found`];
  const st = (obj.status ?? {}) as {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    upToDateReplicas?: number;
    availableReplicas?: number;
  };
  const name = `${kind} ${obj.metadata.name}`;
  const out: string[] = [];
  if ((st.observedGeneration ?? 0) < (obj.metadata.generation ?? 1))
    out.push(`${name}: generation ${obj.metadata.generation} not observed yet`);
  for (const [field, v] of Object.entries({
    replicas: st.replicas,
    readyReplicas: st.readyReplicas,
    upToDateReplicas: st.upToDateReplicas,
    availableReplicas: st.availableReplicas,
  })) {
    if (v !== want) out.push(`${name}: status.${field}=${v ?? 'unset'} (want ${want})`);
  }
  return out;
}

export class DemoRun {
  readonly spec: DemoSpec;
  private readonly out: (line: string) => void;
  private readonly phaseTimeoutMs: number;
  private readonly pollMs: number;
  private readonly tracker = new ProgressTracker(() => this.elapsed());
  private watch?: WatchHandle;
  private stopped = false;
  private workloadClients?: ReturnType<typeof kubeconfigSecretClientProvider>;

  constructor(private readonly opts: DemoOptions) {
    const given = Object.entries(opts.spec ?? {}).filter(([, v]) => v !== undefined);
    this.spec = { ...DEFAULT_DEMO, ...Object.fromEntries(given) };
    this.out = opts.out ?? ((l) => process.stdout.write(l + '\n'));
    this.phaseTimeoutMs = opts.phaseTimeoutMs ?? 5 * 60_000;
    this.pollMs = opts.pollMs ?? 500;
  }

  private get client(): Client {
    return this.opts.client;
  }

  async run(): Promise<DemoResult> {
    const s = this.spec;
    const n = names(s);
    try {
      await this.startWatch();
      this.out(
        `== creating Cluster ${s.namespace}/${s.cluster}: KubeadmControlPlane x${s.controlPlaneReplicas}, MachineDeployment x${s.workerReplicas} (${s.version}, image ${s.image})`,
      );
      this.tracker.section();
      await this.createCluster();
      await this.settle('cluster creation', s.version);

      const beforeInPlace = await this.machines();
      this.out(
        `== in-place change: version ${s.version} -> ${s.upgradeVersion} on KCP and MachineDeployment\n` +
          '   (the reference updater changes a version in place)',
      );
      this.tracker.section();
      await this.patch(
        CONTROLPLANE_API_VERSION,
        'KubeadmControlPlane',
        n.controlPlane,
        versionPatch.controlPlane(s.upgradeVersion),
      );
      await this.patch(
        CLUSTER_API_VERSION,
        'MachineDeployment',
        n.machineDeployment,
        versionPatch.machineDeployment(s.upgradeVersion),
      );
      await this.settle('in-place change', s.upgradeVersion);
      const afterInPlace = await this.machines();
      const inPlaceRows = stepOutcome('in-place', beforeInPlace, afterInPlace);

      this.out(
        `== non-in-place change: image ${s.image} -> ${s.newImage} (new InMemoryMachineTemplates)\n` +
          '   (the updater cannot change an image, so the Machines are replaced)',
      );
      this.tracker.section();
      await this.create(machineTemplateObject(s, n.cpInfraTemplate(2), s.newImage));
      await this.create(machineTemplateObject(s, n.mdInfraTemplate(2), s.newImage));
      await this.patch(
        CONTROLPLANE_API_VERSION,
        'KubeadmControlPlane',
        n.controlPlane,
        infraTemplatePatch.controlPlane(n.cpInfraTemplate(2)),
      );
      await this.patch(
        CLUSTER_API_VERSION,
        'MachineDeployment',
        n.machineDeployment,
        infraTemplatePatch.machineDeployment(n.mdInfraTemplate(2)),
      );
      await this.settle('rollout', s.upgradeVersion);
      const afterRollout = await this.machines();
      const rolloutRows = stepOutcome('rollout', afterInPlace, afterRollout);

      const rows = [...inPlaceRows, ...rolloutRows];
      const problems = [
        ...outcomeProblems(inPlaceRows, 'kept in place'),
        ...outcomeProblems(rolloutRows, 'replaced'),
        ...countProblems('in-place', inPlaceRows, s),
        ...countProblems('rollout', rolloutRows, s),
        ...afterRollout.flatMap((m) => machineProblems(m, s.upgradeVersion)),
      ];
      this.out('== summary');
      this.out(renderSummary(rows));
      const kept = inPlaceRows.filter((r) => r.outcome === 'kept in place').length;
      const replaced = rolloutRows.filter((r) => r.outcome === 'replaced').length;
      this.out(
        `updated in place: ${kept}, replaced: ${replaced}, new: ${rolloutRows.filter((r) => r.outcome === 'new').length}`,
      );
      if (!this.opts.keep) await this.teardown();
      for (const p of problems) this.out(`PROBLEM: ${p}`);
      this.out(problems.length === 0 ? 'demo OK' : `demo FAILED (${problems.length} problems)`);
      return { ok: problems.length === 0, rows, problems };
    } finally {
      this.stop();
    }
  }

  private readonly startedAt = Date.now();

  /** Deletes the Cluster; everything it owned must be gone within the phase timeout (a DemoError otherwise). */
  private async teardown(): Promise<void> {
    const s = this.spec;
    this.out(
      `== deleting Cluster ${s.namespace}/${s.cluster} (workers, then the control plane, then the infrastructure)`,
    );
    this.stop(); // the Machine watch: its lines would interleave with the deletion's
    try {
      await deleteClusterAndWait({
        client: this.client,
        namespace: s.namespace,
        cluster: s.cluster,
        timeoutMs: this.phaseTimeoutMs,
        pollMs: this.pollMs,
        out: this.out,
        elapsed: () => this.elapsed(),
      });
    } catch (e) {
      if (e instanceof TeardownError) throw new DemoError(e.message);
      throw e;
    }
  }

  /** Seconds since the run started, e.g. "+12.3s". */
  private elapsed(): string {
    return `+${((Date.now() - this.startedAt) / 1000).toFixed(1)}s`;
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    this.workloadClients?.closeAll();
  }

  /** The workload cluster's kube-system objects KCP keeps in line (through the cluster's kubeconfig Secret). */
  private async workloadState(): Promise<WorkloadKubeadmState> {
    this.workloadClients ??= kubeconfigSecretClientProvider(this.client);
    try {
      const workload = await this.workloadClients({ namespace: this.spec.namespace, name: this.spec.cluster });
      return await readWorkloadKubeadmState(workload);
    } catch (e) {
      return { error: (e as Error).message };
    }
  }

  private selector(): string {
    return `${CLUSTER_NAME_LABEL}=${this.spec.cluster}`;
  }

  private async machines(): Promise<Machine[]> {
    const list = await this.client.list<Machine>(CLUSTER_API_VERSION, 'Machine', {
      namespace: this.spec.namespace,
      labelSelector: this.selector(),
    });
    return list.items;
  }

  /** Prints progress lines from a Machine watch; re-watches from the last seen resourceVersion when it ends. */
  private async startWatch(): Promise<void> {
    let resourceVersion: string | undefined;
    const open = async (): Promise<void> => {
      const handle = await this.client.watch<Machine>(
        CLUSTER_API_VERSION,
        'Machine',
        { namespace: this.spec.namespace, labelSelector: this.selector(), resourceVersion, allowWatchBookmarks: true },
        (ev) => {
          if (ev.object?.metadata?.resourceVersion) resourceVersion = ev.object.metadata.resourceVersion;
          if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') return;
          const lines = this.tracker.onEvent(ev.type, ev.object);
          if (lines) for (const l of lines.split('\n')) this.out(l);
        },
      );
      this.watch = handle;
      handle.done.then(
        () => this.reopen(open),
        (e: unknown) => {
          if (isGone(e)) resourceVersion = undefined; // too old: start from now
          return this.reopen(open);
        },
      );
    };
    await open();
  }

  private reopen(open: () => Promise<void>): void {
    if (this.stopped) return;
    void sleep(200).then(() => (this.stopped ? undefined : open().catch(() => this.reopen(open))));
  }

  private async create<T extends KubeObject>(obj: T): Promise<T> {
    try {
      return await this.client.create(obj);
    } catch (e) {
      if (isAlreadyExists(e)) {
        throw new DemoError(
          `${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name} already exists: the demo creates a fresh cluster (use --cluster <name>, or delete it first)`,
        );
      }
      throw e;
    }
  }

  private async patch(apiVersion: string, kind: string, name: string, body: unknown): Promise<void> {
    await this.client.patch({ apiVersion, kind, namespace: this.spec.namespace, name }, 'merge', body);
  }

  private async createCluster(): Promise<void> {
    await createDemoCluster((obj) => this.create(obj), this.spec);
  }

  /** Waits until KCP, MachineDeployment and every Machine are settled at `version`; DemoError naming what is not on timeout. */
  private async settle(phase: string, version: string): Promise<void> {
    const s = this.spec;
    const n = names(s);
    const deadline = Date.now() + this.phaseTimeoutMs;
    const started = Date.now();
    let problems: string[] = [];
    while (Date.now() < deadline) {
      const [kcp, md, machines] = await Promise.all([
        this.client.tryGet({
          apiVersion: CONTROLPLANE_API_VERSION,
          kind: 'KubeadmControlPlane',
          namespace: s.namespace,
          name: n.controlPlane,
        }),
        this.client.tryGet({
          apiVersion: CLUSTER_API_VERSION,
          kind: 'MachineDeployment',
          namespace: s.namespace,
          name: n.machineDeployment,
        }),
        this.machines(),
      ]);
      const want = s.controlPlaneReplicas + s.workerReplicas;
      const health = controlPlaneHealth(kcp);
      problems = [
        ...ownerProblems('KubeadmControlPlane', kcp, s.controlPlaneReplicas),
        ...health.problems,
        ...ownerProblems('MachineDeployment', md, s.workerReplicas),
        ...(machines.length === want ? [] : [`${machines.length} Machines (want ${want})`]),
        ...machines.flatMap((m) => machineProblems(m, version)),
      ];
      // Once the Machines are, the workload cluster's kubeadm objects follow the version (KCP's upkeep).
      const workload = problems.length === 0 ? await this.workloadState() : undefined;
      if (workload) problems.push(...workloadProblems(workload, version));
      if (problems.length === 0) {
        this.out(
          `-- ${phase}: settled after ${((Date.now() - started) / 1000).toFixed(1)} s; control plane ${health.line}`,
        );
        this.out(`   ${workloadLine(workload!)}`);
        return;
      }
      await sleep(this.pollMs);
    }
    throw new DemoError(
      `${phase} did not settle within ${this.phaseTimeoutMs / 1000} s:\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
  }
}

function countProblems(step: string, rows: readonly OutcomeRow[], s: DemoSpec): string[] {
  const before = rows.filter((r) => r.outcome !== 'new').length;
  const want = s.controlPlaneReplicas + s.workerReplicas;
  return before === want ? [] : [`${step}: ${before} Machines before the step (want ${want})`];
}

/** Runs the whole flow; see DemoRun. */
export const runDemo = (opts: DemoOptions): Promise<DemoResult> => new DemoRun(opts).run();
