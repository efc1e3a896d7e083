// Benchmark 2: API writes per effective change and per no-op reconcile through @capi/ssa patch, counted at the server.
import { RequestMetrics } from '@capi/apiserver';
import type { KubeObject } from '@capi/apimachinery';
import { InformerCache, KubeClient, type ObjectRef } from '@capi/controller-runtime';
import { embeddedServer, startEnvtest, type Envtest } from '@capi/envtest';
import { patch, SsaCache } from '@capi/ssa';
import { KubeConfig } from '@kubernetes/client-node';
import { renderTable, type Cell } from './table';

/** Upstream documents two applies per change: the change, then one more on the next reconcile to fill its cache. */
export const UPSTREAM_APPLIES_PER_CHANGE = 2;

const MACHINE = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine' };

export function desiredMachine(name: string, version: string): KubeObject {
  return {
    ...MACHINE,
    metadata: { name, namespace: 'default', labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
    spec: {
      clusterName: 'c1',
      version,
      bootstrap: { dataSecretName: `${name}-data` },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevMachine', name },
    },
  };
}

/** Reconciles per object: the first creates, then no-ops and spec changes alternate like a controller under churn. */
export const RECONCILE_SEQUENCE: { step: 'create' | 'change' | 'noop'; version: string }[] = [
  { step: 'create', version: 'v1.30.0' },
  { step: 'noop', version: 'v1.30.0' },
  { step: 'noop', version: 'v1.30.0' },
  { step: 'change', version: 'v1.31.0' },
  { step: 'noop', version: 'v1.31.0' },
  { step: 'noop', version: 'v1.31.0' },
  { step: 'change', version: 'v1.32.0' },
  { step: 'noop', version: 'v1.32.0' },
];

export interface WriteCounts {
  /** create + change steps */
  changes: number;
  changeWrites: number;
  noops: number;
  noopWrites: number;
  /** every request the server saw (reads, watches included) */
  requests: number;
}

type Reader = (ref: ObjectRef) => Promise<KubeObject | undefined>;
/** Waits until the reader can see `resourceVersion` (an informer lags behind the write). */
type Settle = (ref: ObjectRef, resourceVersion: string) => Promise<void>;

/** Runs RECONCILE_SEQUENCE for `objects` Machines and counts writes per kind of step at the server. */
export async function countWrites(
  env: Envtest,
  client: KubeClient,
  opts: { objects: number; prefix: string; read: Reader; settle: Settle; cache?: SsaCache },
): Promise<WriteCounts> {
  const out: WriteCounts = { changes: 0, changeWrites: 0, noops: 0, noopWrites: 0, requests: 0 };
  for (const { step, version } of RECONCILE_SEQUENCE) {
    for (let i = 0; i < opts.objects; i++) {
      const name = `${opts.prefix}-${i}`;
      const ref = { ...MACHINE, namespace: 'default', name };
      const original = await opts.read(ref);
      const modified = desiredMachine(name, version);
      embeddedServer(env).resetRequests();
      await patch(client, modified, { fieldOwner: 'capi-machineset', original, cache: opts.cache });
      const counts = embeddedServer(env).countRequests();
      const writes = RequestMetrics.writes(counts);
      out.requests += counts.total;
      if (step === 'noop') {
        out.noops++;
        out.noopWrites += writes;
      } else {
        out.changes++;
        out.changeWrites += writes;
      }
      await opts.settle(ref, modified.metadata.resourceVersion!);
    }
  }
  return out;
}

export async function runSsaWritesBench(args: string[]): Promise<number> {
  const objects = args[0] === undefined ? 50 : Number(args[0]);
  if (!Number.isInteger(objects) || objects < 1)
    throw new Error(`usage: ssa-writes [objects] (integer >= 1), got ${args[0]}`);
  const env = await startEnvtest({ target: 'embedded' });
  const kc = new KubeConfig();
  kc.loadFromString(env.kubeconfig);
  const client = new KubeClient(kc);
  const informers = new InformerCache(client);
  try {
    informers.informerFor(MACHINE.apiVersion, MACHINE.kind);
    informers.start();
    if (!(await informers.waitForSync(30_000))) throw new Error('Machine informer did not sync in 30 s');
    const fromServer: Reader = (ref) => client.tryGet(ref);
    const noWait: Settle = async () => undefined;
    const fromInformer: Reader = (ref) => informers.tryGet(ref);
    const informerCatchesUp: Settle = async (ref, rv) => {
      if (!(await informers.waitForResourceVersion(ref, rv, 30_000)))
        throw new Error(`informer did not observe ${ref.name}@${rv} in 30 s`);
    };
    const clock = { now: () => 0 };
    const runs: [string, () => Promise<WriteCounts>][] = [
      [
        'ssa cache, read from informer',
        () =>
          countWrites(env, client, {
            objects,
            prefix: 'inf',
            read: fromInformer,
            settle: informerCatchesUp,
            cache: new SsaCache({ controllerName: 'bench-inf', clock }),
          }),
      ],
      [
        'ssa cache, read from server',
        () =>
          countWrites(env, client, {
            objects,
            prefix: 'get',
            read: fromServer,
            settle: noWait,
            cache: new SsaCache({ controllerName: 'bench-get', clock }),
          }),
      ],
      [
        'no cache, read from informer',
        () => countWrites(env, client, { objects, prefix: 'nocache', read: fromInformer, settle: informerCatchesUp }),
      ],
    ];
    const rows: Cell[][] = [];
    for (const [label, run] of runs) {
      const c = await run();
      const perChange = c.changeWrites / c.changes;
      const allPerChange = (c.changeWrites + c.noopWrites) / c.changes;
      rows.push([
        label,
        c.changes,
        perChange,
        c.noops,
        c.noopWrites / c.noops,
        allPerChange,
        allPerChange / UPSTREAM_APPLIES_PER_CHANGE,
        c.requests / (c.changes + c.noops),
      ]);
    }
    process.stdout.write(
      `SSA writes counted at the API server (${objects} Machines x ${RECONCILE_SEQUENCE.length} reconciles; target 1 per change, 0 per no-op)\n`,
    );
    process.stdout.write(
      renderTable(
        [
          'loop',
          'changes',
          'writes/change',
          'no-ops',
          'writes/no-op',
          'all writes/change',
          `ratio vs upstream ${UPSTREAM_APPLIES_PER_CHANGE}/change`,
          'requests/patch call',
        ],
        rows,
      ),
    );
    return 0;
  } finally {
    await informers.stop();
    client.close();
    await env.stop();
  }
}
