// Seeded misbehaviours of a Runtime Extension's hook endpoint (pure: the fuzz test's raw server plays them).
import { HOOKS_API_VERSION } from '@capi/api';
import type { ExtensionCallErrorReason } from '@capi/runtime-client';
import { Rng } from './support/rng';

export type Misbehaviour =
  /** Answer `code` with `body` (bytes as given, whatever they are). */
  | { type: 'respond'; code: number; body: Buffer; contentType?: string }
  /** Send headers and part of the body, then reset the connection. */
  | { type: 'reset-mid-body'; partial: Buffer }
  /** Close the socket without answering. */
  | { type: 'hang-up' }
  /** Answer only after the handler timeout. */
  | { type: 'slow'; delayMs: number }
  /** Send headers then stall the body past the timeout. */
  | { type: 'stall-body' };

export interface HookCase {
  label: string;
  behaviour: Misbehaviour;
  /** Reasons the client may answer with; undefined: a decoded success is acceptable too. */
  expect?: ExtensionCallErrorReason[];
}

const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

function validResponse(rng: Rng, kind: string): Record<string, unknown> {
  return {
    apiVersion: HOOKS_API_VERSION,
    kind,
    status: 'Success',
    message: rng.string(rng.int(0, 10)),
    retryAfterSeconds: rng.int(0, 30),
  };
}

/** Valid envelope with one field replaced by a value of a random (often wrong) type. */
function wrongTyped(rng: Rng, kind: string): Record<string, unknown> {
  const r = validResponse(rng, kind);
  const field = rng.pick([
    'status',
    'message',
    'retryAfterSeconds',
    'kind',
    'apiVersion',
    'machinePatch',
    'infrastructureMachinePatch',
    'bootstrapConfigPatch',
  ]);
  r[field] = field.endsWith('Patch')
    ? rng.pick([
        rng.json(2),
        { patchType: rng.json(0), patch: rng.json(0) },
        { patchType: 'JSONPatch', patch: 'not base64 !!' },
      ])
    : rng.json(2);
  return r;
}

type Gen = (rng: Rng, kind: string) => Omit<HookCase, 'label'>;

const json = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8');

const generators: Record<string, Gen> = {
  'random-json': (rng) => ({ behaviour: { type: 'respond', code: 200, body: json(rng.json(4)) } }),
  'wrong-types': (rng, kind) => ({ behaviour: { type: 'respond', code: 200, body: json(wrongTyped(rng, kind)) } }),
  'truncated-json': (rng, kind) => {
    const full = json(validResponse(rng, kind));
    return {
      behaviour: { type: 'respond', code: 200, body: full.subarray(0, rng.int(0, full.length - 2)) },
      expect: ['MalformedResponse'],
    };
  },
  'not-json': (rng) => ({
    behaviour: {
      type: 'respond',
      code: 200,
      body: rng.pick([
        Buffer.from('<html>oops</html>'),
        Buffer.from([0xff, 0xfe, 0x00, 0x80]),
        Buffer.alloc(0),
        Buffer.from('status: Success'),
        Buffer.from('NaN'),
      ]),
      contentType: rng.pick(['text/html', 'application/json', undefined]),
    },
    expect: ['MalformedResponse'],
  }),
  'http-status': (rng, kind) => ({
    behaviour: {
      type: 'respond',
      code: rng.pick([201, 204, 301, 400, 401, 404, 418, 429, 500, 502, 503]),
      body: rng.bool() ? json(validResponse(rng, kind)) : Buffer.from(rng.string(rng.int(0, 50))),
    },
    expect: ['HttpStatus'],
  }),
  'failure-status': (rng, kind) => ({
    behaviour: {
      type: 'respond',
      code: 200,
      body: json({ ...validResponse(rng, kind), status: 'Failure', message: rng.string(rng.int(0, 20)) }),
    },
    expect: ['Failure'],
  }),
  'huge-valid': (rng, kind) => ({
    behaviour: {
      type: 'respond',
      code: 200,
      body: json({ ...validResponse(rng, kind), message: 'm'.repeat(rng.int(1, 3) * 1024 * 1024) }),
    },
  }),
  'huge-over-limit': () => ({
    behaviour: { type: 'respond', code: 200, body: Buffer.alloc(MAX_RESPONSE_BYTES + 1024, 0x20) },
    expect: ['MalformedResponse'],
  }),
  'reset-mid-body': (rng, kind) => ({
    behaviour: { type: 'reset-mid-body', partial: json(validResponse(rng, kind)).subarray(0, 10) },
    expect: ['TransportError'],
  }),
  'hang-up': () => ({ behaviour: { type: 'hang-up' }, expect: ['TransportError'] }),
};

export const SLOW_GENERATORS: Record<string, Gen> = {
  slow: () => ({ behaviour: { type: 'slow', delayMs: 1500 }, expect: ['Timeout'] }),
  'stall-body': () => ({ behaviour: { type: 'stall-body' }, expect: ['Timeout'] }),
};

export const HOOK_GENERATOR_NAMES = Object.keys(generators);

/** `count` fast misbehaviours (no timeouts), cycling through every generator. */
export function generateHookCases(seed: number, count: number, responseKind: string): HookCase[] {
  const rng = new Rng(seed);
  return Array.from({ length: count }, (_, i) => {
    const name = HOOK_GENERATOR_NAMES[i % HOOK_GENERATOR_NAMES.length];
    return { label: `${name} #${i} seed ${seed}`, ...generators[name](rng, responseKind) };
  });
}
