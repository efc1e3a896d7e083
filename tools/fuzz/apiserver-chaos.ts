// Chaos loop for the SQLite-backed API server: concurrent writers, kill -9 at a random moment, restart on the same
// file, verify that every acknowledged write survived (and nothing else appeared). Shared by the test and the bench.
import * as https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonBody, rawRequest, type Endpoint } from './support/http';
import { startServerProcess, type ServerProcess } from './support/apiserver-process';
import { Rng } from './support/rng';

const NS_PATH = '/api/v1/namespaces/default/configmaps';

/** What a ConfigMap looks like after a write: absent, or present with data.v (and the resourceVersion if acknowledged). */
interface ObjectState {
  exists: boolean;
  v?: string;
  rv?: string;
}

interface Tracked {
  name: string;
  acked: ObjectState;
  /** The write sent but not acknowledged when the server died: it may or may not have been persisted. */
  inFlight?: ObjectState;
  /** Next data.v to write. */
  counter: number;
}

export interface ChaosIteration {
  iteration: number;
  ackedWrites: number;
  inFlightAtKill: number;
  killAfterMs: number;
  restartMs: number;
  violations: string[];
}

export interface ChaosOptions {
  seed: number;
  iterations: number;
  writers?: number;
  objectsPerWriter?: number;
  /** Kill after a random delay in [min, max] ms once the writers run. */
  killAfterMs?: [number, number];
  log?: (line: string) => void;
}

function matches(
  stored: { data?: { v?: string }; metadata: { resourceVersion: string } } | undefined,
  s: ObjectState,
): boolean {
  if (!s.exists) return stored === undefined;
  return (
    stored !== undefined && stored.data?.v === s.v && (s.rv === undefined || stored.metadata.resourceVersion === s.rv)
  );
}

/** One writer: cycles over its objects, creating, patching (v = counter) and sometimes deleting them, until stopped. */
async function writer(
  ep: Endpoint,
  agent: https.Agent,
  objects: Tracked[],
  rng: Rng,
  stop: { dead: boolean },
  counts: { acked: number },
): Promise<void> {
  while (!stop.dead) {
    const t = rng.pick(objects);
    const v = String(t.counter++);
    let method: string;
    let path: string;
    let body: ReturnType<typeof jsonBody> | { body: string; contentType: string };
    let next: ObjectState;
    if (!t.acked.exists) {
      method = 'POST';
      path = NS_PATH;
      body = jsonBody({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: t.name }, data: { v } });
      next = { exists: true, v };
    } else if (rng.bool(0.15)) {
      method = 'DELETE';
      path = `${NS_PATH}/${t.name}`;
      body = jsonBody({});
      next = { exists: false };
    } else {
      method = 'PATCH';
      path = `${NS_PATH}/${t.name}`;
      body = { body: JSON.stringify({ data: { v } }), contentType: 'application/merge-patch+json' };
      next = { exists: true, v };
    }
    t.inFlight = next;
    let res;
    try {
      res = await rawRequest(ep, method, path, { ...body, agent, timeoutMs: 10_000 });
    } catch {
      return; // the server died: this write stays in flight (unknown outcome)
    }
    if (res.code >= 300) throw new Error(`${method} ${t.name}: unexpected ${res.code} ${res.text.slice(0, 200)}`);
    t.acked = next.exists ? { ...next, rv: JSON.parse(res.text).metadata.resourceVersion } : next;
    t.inFlight = undefined;
    counts.acked++;
  }
}

/** Compares the restarted server's ConfigMaps with the writers' acknowledged (or in-flight) states. */
async function verify(ep: Endpoint, agent: https.Agent, tracked: Tracked[]): Promise<string[]> {
  const res = await rawRequest(ep, 'GET', NS_PATH, { agent });
  if (res.code !== 200) return [`list after restart: ${res.code} ${res.text.slice(0, 200)}`];
  const stored = new Map<string, any>(JSON.parse(res.text).items.map((i: any) => [i.metadata.name, i]));
  const violations: string[] = [];
  for (const t of tracked) {
    const s = stored.get(t.name);
    stored.delete(t.name);
    if (matches(s, t.acked)) {
      t.inFlight = undefined;
      continue;
    }
    if (t.inFlight && matches(s, t.inFlight)) {
      // The unacknowledged write was persisted: that is the state now (resourceVersion from the server).
      t.acked = s ? { exists: true, v: s.data?.v, rv: s.metadata.resourceVersion } : { exists: false };
      t.inFlight = undefined;
      continue;
    }
    violations.push(
      `${t.name}: stored ${s ? `v=${s.data?.v} rv=${s.metadata.resourceVersion}` : 'absent'}, acknowledged ${JSON.stringify(t.acked)}${t.inFlight ? `, in flight ${JSON.stringify(t.inFlight)}` : ''}`,
    );
  }
  for (const name of stored.keys()) violations.push(`${name}: stored but never written`);
  return violations;
}

export async function runApiserverChaos(opts: ChaosOptions): Promise<ChaosIteration[]> {
  const rng = new Rng(opts.seed);
  const writers = opts.writers ?? 4;
  const perWriter = opts.objectsPerWriter ?? 5;
  const [minKill, maxKill] = opts.killAfterMs ?? [200, 1200];
  const dir = mkdtempSync(join(tmpdir(), 'apiserver-chaos-'));
  const groups: Tracked[][] = Array.from({ length: writers }, (_, w) =>
    Array.from({ length: perWriter }, (_, k) => ({ name: `w${w}-${k}`, acked: { exists: false }, counter: 0 })),
  );
  const all = groups.flat();
  const results: ChaosIteration[] = [];
  let server: ServerProcess | undefined;
  try {
    let t0 = Date.now();
    server = await startServerProcess(dir);
    let restartMs = Date.now() - t0;
    for (let iteration = 1; iteration <= opts.iterations; iteration++) {
      const agent = new https.Agent({ keepAlive: true, ca: Buffer.from(server.endpoint.caData!, 'base64') });
      const stop = { dead: false };
      const counts = { acked: 0 };
      const running = groups.map((g, w) =>
        writer(server!.endpoint, agent, g, new Rng(opts.seed * 1000 + iteration * 10 + w), stop, counts),
      );
      const killAfterMs = rng.int(minKill, maxKill);
      await new Promise((r) => setTimeout(r, killAfterMs));
      // Mark dead first so writers that get an answer during the kill do not start new writes.
      await server.kill9();
      stop.dead = true;
      await Promise.all(running);
      agent.destroy();
      const inFlightAtKill = all.filter((t) => t.inFlight).length;

      t0 = Date.now();
      server = await startServerProcess(dir);
      restartMs = Date.now() - t0;
      const verifyAgent = new https.Agent({ keepAlive: true, ca: Buffer.from(server.endpoint.caData!, 'base64') });
      const violations = await verify(server.endpoint, verifyAgent, all);
      verifyAgent.destroy();
      results.push({ iteration, ackedWrites: counts.acked, inFlightAtKill, killAfterMs, restartMs, violations });
      opts.log?.(
        `iteration ${iteration}: ${counts.acked} acknowledged writes, ${inFlightAtKill} in flight at kill after ${killAfterMs} ms, restart ${restartMs} ms, ${violations.length} violations`,
      );
    }
    return results;
  } finally {
    await server?.kill9();
    rmSync(dir, { recursive: true, force: true });
  }
}
