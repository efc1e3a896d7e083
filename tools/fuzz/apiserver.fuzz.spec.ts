// Bad input to the embedded API server: every answer is a proper Status (4xx, never 5xx), a rejected request writes
// nothing, the server stays up and objects stored before the fuzzing are unchanged.
import * as http from 'node:http';
import { embeddedServer, startEnvtest, type Envtest } from '@capi/envtest';
import {
  COLLECTIONS,
  generateRequests,
  GENERATOR_NAMES,
  KNOWN_BUG_DELETE_BODIES,
  KNOWN_BUG_PATHS,
  limitCases,
  NAMESPACE,
  type FuzzRequest,
} from './apiserver-cases';
import { jsonBody, rawRequest, type Endpoint, type RawResponse } from './support/http';
import { statusViolation } from './support/status';

jest.setTimeout(60_000);

const SEEDS = [1, 2];
const CASES_PER_SEED = 200;
const sentinelName = (i: number) => `sentinel-${i}`;

describe('API server under malformed requests', () => {
  let env: Envtest;
  let ep: Endpoint;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const serverErrors: string[] = [];
  const sentinels = new Map<string, string>();

  const send = (r: FuzzRequest): Promise<RawResponse> =>
    rawRequest(ep, r.method, r.path, {
      body: r.body,
      contentType: r.contentType,
      headers: r.headers,
      agent,
      timeoutMs: 20_000,
    });
  const get = async (path: string) => {
    const res = await rawRequest(ep, 'GET', path, { agent });
    if (res.code !== 200) throw new Error(`GET ${path}: ${res.code} ${res.text}`);
    return res.text;
  };
  /** The store's revision: any write bumps it. */
  const revision = async () => JSON.parse(await get('/api/v1/namespaces?limit=1')).metadata.resourceVersion as string;

  beforeAll(async () => {
    env = await startEnvtest({
      target: 'embedded',
      server: { tls: false, logger: { info: () => undefined, error: (m) => serverErrors.push(m) } },
    });
    ep = { url: env.url, token: env.token };
    // One stored object per collection (plus one more ConfigMap), never addressed by name by the fuzzer.
    const specs = [
      ...COLLECTIONS.map((c, i) => ({ c, name: sentinelName(i) })),
      { c: COLLECTIONS[0], name: sentinelName(COLLECTIONS.length) },
    ];
    for (const { c, name } of specs) {
      const res = await rawRequest(ep, 'POST', c.path, { ...jsonBody(c.valid(name)), agent });
      if (res.code !== 201) throw new Error(`creating sentinel ${name}: ${res.code} ${res.text}`);
      const path = `${c.path}/${name}`;
      sentinels.set(path, await get(path));
    }
  });
  afterAll(async () => {
    agent.destroy();
    await env?.stop();
  });

  it.each(SEEDS)(
    `seed %i: ${CASES_PER_SEED} requests over ${GENERATOR_NAMES.length} kinds of bad input`,
    async (seed) => {
      const violations: string[] = [];
      const statusCodes = new Map<number, number>();
      for (const r of generateRequests(seed, CASES_PER_SEED)) {
        const before = await revision();
        const res = await send(r);
        statusCodes.set(res.code, (statusCodes.get(res.code) ?? 0) + 1);
        const bad = statusViolation(res, r.method);
        if (bad) violations.push(`${r.label}: ${r.method} ${r.path.slice(0, 120)} -> ${bad}`);
        if (res.code >= 400) {
          const after = await revision();
          if (after !== before)
            violations.push(
              `${r.label}: rejected with ${res.code} but the store moved from revision ${before} to ${after}`,
            );
        } else {
          // Accepted writes may leave work for the garbage collector (random ownerReferences); let it finish.
          await embeddedServer(env).gcIdle();
        }
      }
      expect(violations).toEqual([]);
      // The generators must reach the validation paths, not just be rejected at the door.
      const rejected = [...statusCodes].filter(([c]) => c >= 400).reduce((n, [, k]) => n + k, 0);
      expect(rejected).toBeGreaterThan(CASES_PER_SEED / 2);
      expect(statusCodes.get(422) ?? 0).toBeGreaterThan(0);
      expect(statusCodes.get(415) ?? 0).toBeGreaterThan(0);
    },
  );

  it('answers concurrent bad requests (8 in flight) the same way', async () => {
    const violations: string[] = [];
    const requests = generateRequests(3, 120);
    for (let i = 0; i < requests.length; i += 8) {
      const batch = requests.slice(i, i + 8);
      const answers = await Promise.all(batch.map(send));
      answers.forEach((res, j) => {
        const bad = statusViolation(res, batch[j].method);
        if (bad) violations.push(`${batch[j].label}: ${bad}`);
      });
    }
    expect(violations).toEqual([]);
  });

  it('refuses a body over the size limit with 413 RequestEntityTooLarge', async () => {
    const res = await rawRequest(ep, 'POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
      ...jsonBody({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'too-big' },
        data: { k: 'x'.repeat(9 * 1024 * 1024) },
      }),
      agent,
    });
    expect(statusViolation(res, 'POST')).toBeUndefined();
    expect(res.code).toBe(413);
    expect(JSON.parse(res.text).reason).toBe('RequestEntityTooLarge');
  });

  // Each once accepted (objects up to the old 8 MiB body limit) or a 500 (nesting: "Maximum call stack size exceeded").
  it.each(limitCases().map((c) => [c.label, c] as const))(
    'answers %s as kube does, and stores nothing',
    async (_label, c) => {
      const before = await revision();
      const res = await send(c.request);
      expect(statusViolation(res, c.request.method)).toBeUndefined();
      const status = JSON.parse(res.text);
      expect({ code: res.code, reason: status.reason }).toEqual({ code: c.code, reason: c.reason });
      expect(status.message).toMatch(c.message);
      expect(await revision()).toBe(before);
    },
  );

  it('answers unauthenticated and wrongly authenticated requests with a 401 Status', async () => {
    for (const token of [undefined, '', 'wrong', `${'x'.repeat(10_000)}`]) {
      const res = await rawRequest({ url: ep.url, token }, 'GET', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
        agent,
      });
      expect(statusViolation(res, 'GET')).toBeUndefined();
      expect(res.code).toBe(401);
    }
  });

  // Once a 500 (decodeURIComponent threw in parseResourcePath); fixed, kept as a regression case.
  it('answers invalid percent-encoding in the path with a 400 Status, like kube', async () => {
    for (const path of KNOWN_BUG_PATHS) {
      const res = await rawRequest(ep, 'GET', path, { agent });
      expect(statusViolation(res, 'GET')).toBeUndefined();
      expect(res.code).toBe(400);
    }
  });

  // Once a 500 (DELETE read `propagationPolicy` of null, `dryRun.includes` of a number); fixed, kept as a regression case.
  it('answers a DELETE whose body is not a DeleteOptions object without a 5xx', async () => {
    for (const body of KNOWN_BUG_DELETE_BODIES) {
      const res = await rawRequest(ep, 'DELETE', `/api/v1/namespaces/${NAMESPACE}/configmaps/does-not-exist`, {
        body,
        contentType: 'application/json',
        agent,
      });
      expect(statusViolation(res, 'DELETE')).toBeUndefined();
    }
  });

  it('stays up, logged no internal error, and kept every object stored before the fuzzing', async () => {
    expect((await rawRequest(ep, 'GET', '/healthz', { agent })).code).toBe(200);
    expect(JSON.parse(await get('/version')).major).toBe('1');
    for (const [path, stored] of sentinels)
      expect({ path, now: JSON.parse(await get(path)) }).toEqual({ path, now: JSON.parse(stored) });
    expect(serverErrors).toEqual([]);
  });
});
