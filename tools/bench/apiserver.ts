// Benchmark: embedded API server throughput per verb over HTTP (create, get, list, merge patch, status patch, apply)
// with W watchers open on the kind, so every write also pays the watch fan-out.
import type { KubeObject } from '@capi/apimachinery';
import { KubeClient, type WatchHandle } from '@capi/controller-runtime';
import { startEnvtest } from '@capi/envtest';
import { KubeConfig } from '@kubernetes/client-node';
import { renderTable, type Cell } from './table';

const MACHINE = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine' };
const NS = 'default';
/** Requests in flight at once, like a few controller workers. */
const CONCURRENCY = 8;

function machine(i: number): KubeObject {
  const name = `m-${i}`;
  return {
    ...MACHINE,
    metadata: {
      name,
      namespace: NS,
      labels: {
        'cluster.x-k8s.io/cluster-name': 'c1',
        'cluster.x-k8s.io/deployment-name': 'md1',
        'cluster.x-k8s.io/set-name': 'ms1',
      },
      annotations: { 'bench/index': String(i) },
    },
    spec: {
      clusterName: 'c1',
      version: 'v1.30.0',
      bootstrap: {
        configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name },
        dataSecretName: `${name}-data`,
      },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevMachine', name },
      providerID: `inmemory://${name}`,
    },
  };
}

async function inBatches(n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

interface Watchers {
  events(): number;
  waitFor(total: number, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

async function openWatchers(client: KubeClient, count: number): Promise<Watchers> {
  const counts = new Array<number>(count).fill(0);
  const handles: WatchHandle[] = [];
  const rv = (await client.list(MACHINE.apiVersion, MACHINE.kind, { namespace: NS })).metadata?.resourceVersion;
  for (let w = 0; w < count; w++) {
    handles.push(
      await client.watch(
        MACHINE.apiVersion,
        MACHINE.kind,
        { namespace: NS, resourceVersion: rv },
        () => void counts[w]++,
      ),
    );
  }
  const min = () => counts.reduce((a, b) => Math.min(a, b), Infinity);
  return {
    events: () => counts.reduce((a, b) => a + b, 0),
    async waitFor(perWatcher, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (count > 0 && min() < perWatcher) {
        if (Date.now() > deadline) throw new Error(`watchers saw ${min()} of ${perWatcher} events in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 2));
      }
    },
    async stop() {
      for (const h of handles) h.stop();
      await Promise.all(handles.map((h) => h.done.catch(() => undefined)));
    },
  };
}

export async function runApiserverBench(args: string[]): Promise<number> {
  const n = args[0] === undefined ? 1000 : Number(args[0]);
  const w = args[1] === undefined ? 4 : Number(args[1]);
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(w) || w < 0)
    throw new Error(`usage: apiserver [objects] [watchers], got ${args.join(' ')}`);
  const sqlite = args.includes('--sqlite');
  const dir = sqlite
    ? (await import('node:fs')).mkdtempSync(`${(await import('node:os')).tmpdir()}/bench-apiserver-`)
    : undefined;
  const env = await startEnvtest({
    target: 'embedded',
    server: dir ? { storage: { type: 'sqlite', path: `${dir}/db.sqlite` } } : {},
  });
  const kc = new KubeConfig();
  kc.loadFromString(env.kubeconfig);
  const client = new KubeClient(kc);
  const watchers = await openWatchers(client, w);
  const ref = (i: number) => ({ ...MACHINE, namespace: NS, name: `m-${i}` });
  let eventsExpected = 0;
  const rows: Cell[][] = [];
  const phase = async (verb: string, ops: number, run: () => Promise<unknown>, writes: boolean) => {
    const t0 = process.hrtime.bigint();
    await run();
    if (writes) {
      eventsExpected += ops;
      await watchers.waitFor(eventsExpected, 120_000);
    }
    const us = Number(process.hrtime.bigint() - t0) / 1000;
    rows.push([verb, ops, Math.round(ops / (us / 1e6)), Math.round(us / ops)]);
  };
  try {
    await phase('create', n, () => inBatches(n, (i) => client.create(machine(i))), true);
    await phase('get', n, () => inBatches(n, (i) => client.get(ref(i))), false);
    const lists = Math.max(1, Math.round(n / 100));
    await phase(
      `list (${n} items)`,
      lists,
      () => inBatches(lists, () => client.list(MACHINE.apiVersion, MACHINE.kind, { namespace: NS })),
      false,
    );
    await phase(
      'merge patch',
      n,
      () =>
        inBatches(n, (i) => client.patch(ref(i), 'merge', { metadata: { annotations: { 'bench/patched': 'yes' } } })),
      true,
    );
    await phase(
      'status patch',
      n,
      () =>
        inBatches(n, (i) =>
          client.patch(
            ref(i),
            'merge',
            { status: { phase: 'Running', observedGeneration: 1 } },
            { subresource: 'status' },
          ),
        ),
      true,
    );
    await phase(
      'apply (SSA)',
      n,
      () =>
        inBatches(n, (i) =>
          client.apply(
            { ...machine(i), spec: { ...(machine(i).spec as object), version: 'v1.31.0' } },
            { fieldManager: 'bench', force: true },
          ),
        ),
      true,
    );
    const noop = () =>
      inBatches(n, (i) =>
        client.apply(
          { ...machine(i), spec: { ...(machine(i).spec as object), version: 'v1.31.0' } },
          { fieldManager: 'bench', force: true },
        ),
      );
    await phase('apply no-op (SSA)', n, noop, false);
    process.stdout.write(
      `embedded API server (${sqlite ? 'SQLite file' : 'memory'} storage, HTTPS, ${CONCURRENCY} requests in flight), ${n} Machines, ${w} watchers (${watchers.events()} events delivered)\n`,
    );
    process.stdout.write(renderTable(['verb', 'ops', 'ops/s', 'µs/op'], rows));
    return 0;
  } finally {
    await watchers.stop();
    client.close();
    await env.stop();
    if (dir) (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
  }
}
