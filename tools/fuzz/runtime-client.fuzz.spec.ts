// Malformed hook responses to the RuntimeClient: every call ends in a decoded, well-typed response or a typed
// ExtensionCallError (never another error, an unhandled rejection or a hang), and the client keeps working.
import { HOOKS_API_VERSION, type CanUpdateMachineRequest, type UpdateMachineRequest } from '@capi/api';
import {
  createExtensionServer,
  discoverExtension,
  ExtensionCallError,
  ExtensionRegistry,
  HttpsExtensionTransport,
  RuntimeClient,
  TRANSPORT_LEVEL_REASONS,
  type ExtensionCallErrorReason,
  type ExtensionConfig,
  type ExtensionServer,
} from '@capi/runtime-client';
import { generateHookCases, SLOW_GENERATORS, type HookCase } from './hook-responses';
import { startMisbehavingExtension, type MisbehavingExtension } from './support/misbehaving-extension';
import { Rng } from './support/rng';

jest.setTimeout(60_000);

const machine = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'm1', namespace: 'default' },
  spec: {},
};
const updateRequest: UpdateMachineRequest = {
  apiVersion: HOOKS_API_VERSION,
  kind: 'UpdateMachineRequest',
  desired: { machine, infrastructureMachine: machine },
};
const canUpdateRequest: CanUpdateMachineRequest = {
  apiVersion: HOOKS_API_VERSION,
  kind: 'CanUpdateMachineRequest',
  current: { machine, infrastructureMachine: machine },
  desired: { machine, infrastructureMachine: machine },
};
const forObject = { metadata: { namespace: 'default' } };

type Outcome = { ok: true; value: Record<string, unknown> } | { ok: false; error: unknown };

/**
 * Why a decoded success is not well typed, or undefined. JSON null counts as absent (Go decodes null into a zero
 * value / nil pointer; the decoder passes it through, so consumers must treat null like undefined).
 */
function responseViolation(hook: 'UpdateMachine' | 'CanUpdateMachine', r: Record<string, unknown>): string | undefined {
  const present = (v: unknown) => v !== undefined && v !== null;
  if (r.status !== 'Success') return `status ${JSON.stringify(r.status)}`;
  if (present(r.message) && typeof r.message !== 'string') return `message ${JSON.stringify(r.message)}`;
  if (hook === 'UpdateMachine' && present(r.retryAfterSeconds) && !Number.isInteger(r.retryAfterSeconds))
    return `retryAfterSeconds ${JSON.stringify(r.retryAfterSeconds)}`;
  if (hook !== 'CanUpdateMachine') return undefined; // other fields are unknown to UpdateMachine and ignored, like Go does
  for (const p of ['machinePatch', 'infrastructureMachinePatch', 'bootstrapConfigPatch']) {
    const v = r[p] as Record<string, unknown> | undefined | null;
    if (!present(v)) continue;
    if (typeof v !== 'object' || Array.isArray(v)) return `${p} is not an object`;
    if (present(v!.patch) && typeof v!.patch !== 'string') return `${p}.patch is not a string`;
    if (present(v!.patchType) && typeof v!.patchType !== 'string') return `${p}.patchType is not a string`;
  }
  return undefined;
}

function judge(
  c: HookCase,
  hook: 'UpdateMachine' | 'CanUpdateMachine',
  out: Outcome,
  ignore: boolean,
): string | undefined {
  if (out.ok) {
    const bad = responseViolation(hook, out.value);
    if (bad) return `resolved with a badly typed response: ${bad}`;
    // failurePolicy Ignore turns transport-level errors into an empty success.
    const allowed = !c.expect || (ignore && c.expect.every((r) => TRANSPORT_LEVEL_REASONS.includes(r)));
    return allowed ? undefined : `resolved, expected ${c.expect!.join('|')}`;
  }
  if (!(out.error instanceof ExtensionCallError))
    return `rejected with ${String((out.error as Error)?.stack ?? out.error)}`;
  const reason: ExtensionCallErrorReason = out.error.reason;
  if (c.expect && !c.expect.includes(reason))
    return `reason ${reason} (${out.error.message.slice(0, 150)}), expected ${c.expect.join('|')}`;
  if (!c.expect && !['MalformedResponse', 'InvalidResponseStatus', 'Failure'].includes(reason))
    return `reason ${reason}: ${out.error.message.slice(0, 150)}`;
  if (ignore && TRANSPORT_LEVEL_REASONS.includes(reason)) return `failurePolicy Ignore but rejected with ${reason}`;
  return undefined;
}

describe('RuntimeClient under malformed extension responses', () => {
  const transport = new HttpsExtensionTransport();
  const registry = new ExtensionRegistry();
  const client = new RuntimeClient(registry, transport, async () => ({}));
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  let strict: MisbehavingExtension;
  let lenient: MisbehavingExtension;
  let wellBehaved: ExtensionServer;

  async function register(name: string, url: string, caBundle: string) {
    const ec: ExtensionConfig = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name, resourceVersion: '1' },
      spec: { clientConfig: { url, caBundle } },
    };
    registry.add(await discoverExtension(ec, transport));
  }

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    registry.warmUp([]);
    // 10 s for the fuzzed responses: a 10 MB body over TLS can take more than 1 s on a loaded machine, and these
    // cases are about what arrives, not when; the slow cases use `update-slow` and its 1 s.
    const handlers = (failurePolicy: 'Fail' | 'Ignore') => [
      { name: 'update', hook: 'UpdateMachine', failurePolicy, timeoutSeconds: 10 },
      { name: 'can-update', hook: 'CanUpdateMachine', failurePolicy, timeoutSeconds: 10 },
      { name: 'update-slow', hook: 'UpdateMachine', failurePolicy, timeoutSeconds: 1 },
    ];
    strict = await startMisbehavingExtension(handlers('Fail'));
    lenient = await startMisbehavingExtension(handlers('Ignore'));
    await register('strict', strict.url, strict.caBundle);
    await register('lenient', lenient.url, lenient.caBundle);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    transport.close();
    await Promise.all([strict?.close(), lenient?.close(), wellBehaved?.close()]);
  });

  async function call(hook: 'UpdateMachine' | 'CanUpdateMachine', name: string): Promise<Outcome> {
    const request = hook === 'UpdateMachine' ? updateRequest : canUpdateRequest;
    return client.callExtension(hook, forObject, name, request as never).then(
      (value) => ({ ok: true as const, value: value as unknown as Record<string, unknown> }),
      (error: unknown) => ({ ok: false as const, error }),
    );
  }

  async function runCases(
    ext: MisbehavingExtension,
    extName: string,
    cases: HookCase[],
    hook: 'UpdateMachine' | 'CanUpdateMachine',
    handler = hook === 'UpdateMachine' ? 'update' : 'can-update',
  ): Promise<string[]> {
    const violations: string[] = [];
    for (const c of cases) {
      ext.behaviour = c.behaviour;
      const bad = judge(c, hook, await call(hook, `${handler}.${extName}`), extName === 'lenient');
      if (bad) violations.push(`${hook} ${c.label} via ${extName}: ${bad}`);
    }
    return violations;
  }

  it.each([
    [11, 'UpdateMachine', 'UpdateMachineResponse'],
    [12, 'CanUpdateMachine', 'CanUpdateMachineResponse'],
  ] as const)('seed %i: 100 fuzzed %s responses, failurePolicy Fail', async (seed, hook, kind) => {
    expect(await runCases(strict, 'strict', generateHookCases(seed, 100, kind), hook)).toEqual([]);
  });

  it('seed 13: 60 fuzzed UpdateMachine responses, failurePolicy Ignore (transport errors become empty successes)', async () => {
    expect(
      await runCases(lenient, 'lenient', generateHookCases(13, 60, 'UpdateMachineResponse'), 'UpdateMachine'),
    ).toEqual([]);
  });

  it('responses slower than the 1 s handler timeout (reply late, body stalled) are Timeout errors', async () => {
    const rng = new Rng(14);
    const cases: HookCase[] = Object.entries(SLOW_GENERATORS).map(([label, gen]) => ({
      label,
      ...gen(rng, 'UpdateMachineResponse'),
    }));
    const violations = [
      ...(await runCases(strict, 'strict', cases, 'UpdateMachine', 'update-slow')),
      ...(await runCases(lenient, 'lenient', cases, 'UpdateMachine', 'update-slow')),
    ];
    expect(violations).toEqual([]);
  });

  it('handlers of createExtensionServer returning fuzzed fields or throwing give typed results', async () => {
    const rng = new Rng(15);
    let next: () => unknown = () => ({});
    wellBehaved = await createExtensionServer({
      tls: 'generate',
      handlers: [{ hook: 'UpdateMachine', name: 'fuzzed', handle: () => next() as never }],
    });
    await register('fuzzed', wellBehaved.url, wellBehaved.caBundle);
    const violations: string[] = [];
    for (let i = 0; i < 60; i++) {
      const mode = i % 3;
      const fields = { [rng.pick(['status', 'message', 'retryAfterSeconds', 'kind', 'extra'])]: rng.json(2) };
      next =
        mode === 0
          ? () => fields
          : mode === 1
            ? () => Promise.reject(new Error(rng.string(rng.int(0, 30))))
            : () => {
                throw rng.json(1);
              };
      const c: HookCase = {
        label: `createExtensionServer mode ${mode} #${i}: ${JSON.stringify(fields).slice(0, 80)}`,
        behaviour: { type: 'hang-up' },
        expect: mode === 0 ? undefined : ['Failure'],
      };
      const bad = judge(c, 'UpdateMachine', await call('UpdateMachine', 'fuzzed.fuzzed'), false);
      if (bad) violations.push(`${c.label}: ${bad}`);
    }
    expect(violations).toEqual([]);
  });

  it('still calls a well-behaved handler afterwards and saw no unhandled rejection', async () => {
    strict.behaviour = {
      type: 'respond',
      code: 200,
      body: Buffer.from(
        JSON.stringify({
          apiVersion: HOOKS_API_VERSION,
          kind: 'UpdateMachineResponse',
          status: 'Success',
          retryAfterSeconds: 3,
        }),
      ),
    };
    const out = await call('UpdateMachine', 'update.strict');
    expect(out).toMatchObject({ ok: true, value: { status: 'Success', retryAfterSeconds: 3 } });
    // Let late timers (stalled bodies) fire before checking.
    await new Promise((r) => setTimeout(r, 50));
    expect(unhandled).toEqual([]);
  });
});
