// Contract tests: hand-written upstream-shaped JSON (from the Go types' JSON tags) must decode into our types.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  decodeHookResponse,
  decodePatch,
  encodePatch,
  isPatchDefined,
  HOOKS_API_VERSION,
  type CanUpdateMachineRequest,
  type CanUpdateMachineSetRequest,
  type UpdateMachineRequest,
} from './index';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(__dirname, 'fixtures', `${name}.json`), 'utf8'));

describe('hook wire contract', () => {
  it('uses the upstream group/version', () => {
    expect(HOOKS_API_VERSION).toBe('hooks.runtime.cluster.x-k8s.io/v1alpha1');
  });

  it('DiscoveryResponse fixture decodes with handlers', () => {
    const r = decodeHookResponse('Discovery', fixture('discovery-response'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.handlers.map((h) => h.requestHook.hook)).toEqual([
      'CanUpdateMachine',
      'CanUpdateMachineSet',
      'UpdateMachine',
    ]);
  });

  it('CanUpdateMachineRequest fixture has the upstream keys (bootstrapConfig, infrastructureMachine)', () => {
    const req = fixture('canupdatemachine-request') as unknown as CanUpdateMachineRequest;
    expect(Object.keys(req.current).sort()).toEqual(['bootstrapConfig', 'infrastructureMachine', 'machine']);
    expect(Object.keys(req.desired).sort()).toEqual(['bootstrapConfig', 'infrastructureMachine', 'machine']);
    expect(req.settings).toEqual({ k: 'v' });
  });

  it('CanUpdateMachineResponse fixture decodes and its base64 patches decode to JSON', () => {
    const r = decodeHookResponse('CanUpdateMachine', fixture('canupdatemachine-response'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(decodePatch(r.value.machinePatch!)).toEqual({
      patchType: 'JSONPatch',
      document: [{ op: 'replace', path: '/spec/version', value: 'v1.31.0' }],
    });
    expect(decodePatch(r.value.bootstrapConfigPatch!).patchType).toBe('JSONMergePatch');
    expect(decodePatch(r.value.infrastructureMachinePatch!).document).toEqual([]);
  });

  it('CanUpdateMachineSet request/response fixtures use machineSet / *Template keys', () => {
    const req = fixture('canupdatemachineset-request') as unknown as CanUpdateMachineSetRequest;
    expect(Object.keys(req.current).sort()).toEqual([
      'bootstrapConfigTemplate',
      'infrastructureMachineTemplate',
      'machineSet',
    ]);
    const r = decodeHookResponse('CanUpdateMachineSet', fixture('canupdatemachineset-response'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.keys(r.value)).toEqual(
      expect.arrayContaining(['machineSetPatch', 'infrastructureMachineTemplatePatch', 'bootstrapConfigTemplatePatch']),
    );
  });

  it('UpdateMachine request has only desired; responses carry retryAfterSeconds', () => {
    const req = fixture('updatemachine-request') as unknown as UpdateMachineRequest;
    expect(Object.keys(req)).not.toContain('current');
    for (const name of [
      'updatemachine-response-inprogress',
      'updatemachine-response-done',
      'updatemachine-response-failure',
    ]) {
      const r = decodeHookResponse('UpdateMachine', fixture(name));
      expect(r.ok).toBe(true);
      if (r.ok) expect(typeof r.value.retryAfterSeconds).toBe('number');
    }
  });

  it('requests carry no status, managedFields, uid or resourceVersion', () => {
    for (const name of ['canupdatemachine-request', 'canupdatemachineset-request', 'updatemachine-request']) {
      const text = JSON.stringify(fixture(name));
      for (const key of ['"status"', '"managedFields"', '"uid"', '"resourceVersion"']) expect(text).not.toContain(key);
    }
  });
});

describe('decodeHookResponse rejects bad bodies with a message', () => {
  it.each([
    ['null', null, 'expected a JSON object'],
    ['array', [], 'expected a JSON object'],
    ['missing status', { kind: 'UpdateMachineResponse' }, 'status'],
    ['wrong status', { status: 'OK' }, 'status'],
    ['retryAfterSeconds string', { status: 'Success', retryAfterSeconds: '5' }, 'retryAfterSeconds'],
    ['wrong kind', { kind: 'CanUpdateMachineResponse', status: 'Success' }, 'expected kind UpdateMachineResponse'],
  ])('%s', (_label, body, expected) => {
    const r = decodeHookResponse('UpdateMachine', body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain(expected);
  });

  it('non-base64 patch bytes', () => {
    const r = decodeHookResponse('CanUpdateMachine', {
      status: 'Success',
      machinePatch: { patchType: 'JSONPatch', patch: '%%%' },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain('machinePatch.patch');
  });

  it('handler with wrong types in DiscoveryResponse', () => {
    const r = decodeHookResponse('Discovery', { status: 'Success', handlers: [{ name: 1, requestHook: 'x' }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/handlers\.0\.name/);
  });

  it('defaults retryAfterSeconds to 0 like the Go decoder', () => {
    const r = decodeHookResponse('UpdateMachine', { status: 'Success' });
    expect(r.ok && r.value.retryAfterSeconds).toBe(0);
  });
});

describe('Patch helpers (patch bytes are base64 on the wire)', () => {
  it('encodePatch base64-encodes the JSON document', () => {
    const p = encodePatch('JSONPatch', [{ op: 'add', path: '/spec/x', value: 1 }]);
    expect(p.patch).toBe(Buffer.from('[{"op":"add","path":"/spec/x","value":1}]').toString('base64'));
    expect(decodePatch(p).document).toEqual([{ op: 'add', path: '/spec/x', value: 1 }]);
  });
  it('isPatchDefined follows upstream IsDefined', () => {
    expect(isPatchDefined(undefined)).toBe(false);
    expect(isPatchDefined({})).toBe(false);
    expect(isPatchDefined({ patchType: 'JSONPatch' })).toBe(true);
    expect(isPatchDefined({ patch: 'W10=' })).toBe(true);
  });
  it('decodePatch rejects unknown types and mismatched documents', () => {
    expect(() => decodePatch({ patchType: 'Strategic' as never, patch: 'e30=' })).toThrow(/unknown patchType/);
    expect(() => decodePatch({ patchType: 'JSONPatch', patch: 'e30=' })).toThrow(/array/);
    expect(() => decodePatch({ patchType: 'JSONMergePatch', patch: Buffer.from('[1]').toString('base64') })).toThrow(
      /object/,
    );
    expect(() => decodePatch({ patchType: 'JSONPatch', patch: Buffer.from('{nope').toString('base64') })).toThrow(
      /valid JSON/,
    );
  });
});
