// The Go side of the hook wire contract, run from the test suite: `go test ./...` in test/compat/go-extension decodes
// the project's hook fixtures strictly into upstream's Go types and writes responses built by upstream's types, which
// the TypeScript decoder must then accept as they are.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeHookResponse, decodePatch, type HookName } from '@capi/api';
import { goInModule } from './go-extension';

// A first run on a machine compiles upstream's SDK and its Kubernetes dependencies (about a minute when
// build.mjs has already filled the build cache, several minutes when it has not).
jest.setTimeout(900_000);

const hookOf: Record<string, HookName> = {
  'discovery-response': 'Discovery',
  'canupdatemachine-response': 'CanUpdateMachine',
  'canupdatemachineset-response': 'CanUpdateMachineSet',
  'updatemachine-response-inprogress': 'UpdateMachine',
  'updatemachine-response-done': 'UpdateMachine',
};

describe('the Go extension module (upstream Go types) and the TypeScript hook types', () => {
  let out: string;
  let result: ReturnType<typeof goInModule>;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'go-contract-'));
    // -trimpath as build.mjs builds, so both share go's build cache.
    result = goInModule(['test', '-trimpath', '-count=1', '-v', './...'], { GO_EXTENSION_CONTRACT_OUT: out });
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('go test ./... passes (strict decoding of every fixture, the handlers, the encoded responses)', () => {
    if (result.error) throw result.error;
    if (result.status !== 0)
      throw new Error(`go test failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
    for (const test of [
      'TestEveryFixtureHasAnUpstreamType',
      'TestFixturesDecodeStrictlyIntoUpstreamTypes',
      'TestStrictDecodingRejectsWhatUpstreamDoesNotHave',
      'TestEncodeUpstreamResponses',
      'TestStrictHandler',
    ])
      expect(result.stdout).toContain(`--- PASS: ${test}`);
  });

  it('every response upstream types encoded decodes with decodeHookResponse', () => {
    expect(readdirSync(out).sort()).toEqual(
      Object.keys(hookOf)
        .map((n) => `${n}.json`)
        .sort(),
    );
    for (const [name, hook] of Object.entries(hookOf)) {
      const r = decodeHookResponse(hook, JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')));
      if (!r.ok) throw new Error(`${name}: ${r.message}`);
      expect(r.value.status).toBe('Success');
    }
  });

  it('the values come through: base64 patches, retryAfterSeconds, discovery pointers', () => {
    const read = (name: string) => JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8'));
    const can = decodeHookResponse('CanUpdateMachine', read('canupdatemachine-response'));
    if (!can.ok) throw new Error(can.message);
    expect(decodePatch(can.value.machinePatch!)).toEqual({
      patchType: 'JSONPatch',
      document: [{ op: 'replace', path: '/spec/version', value: 'v1.31.0' }],
    });
    expect(decodePatch(can.value.bootstrapConfigPatch!).document).toEqual([
      { op: 'replace', path: '/spec/clusterConfiguration/etcd/local/imageTag', value: '3.5.16-0' },
    ]);
    expect(decodePatch(can.value.infrastructureMachinePatch!).document).toEqual([]);
    const set = decodeHookResponse('CanUpdateMachineSet', read('canupdatemachineset-response'));
    if (!set.ok) throw new Error(set.message);
    expect(decodePatch(set.value.machineSetPatch!).document).toEqual([
      { op: 'replace', path: '/spec/template/spec/version', value: 'v1.31.0' },
    ]);
    const inProgress = decodeHookResponse('UpdateMachine', read('updatemachine-response-inprogress'));
    const done = decodeHookResponse('UpdateMachine', read('updatemachine-response-done'));
    expect(inProgress.ok && inProgress.value.retryAfterSeconds).toBe(5);
    expect(done.ok && done.value).toMatchObject({
      retryAfterSeconds: 0,
      message: 'Extension completed updating Machine',
    });
    const disc = decodeHookResponse('Discovery', read('discovery-response'));
    if (!disc.ok) throw new Error(disc.message);
    expect(disc.value.handlers).toEqual([
      {
        name: 'update-machine',
        requestHook: { apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1', hook: 'UpdateMachine' },
        timeoutSeconds: 5,
        failurePolicy: 'Ignore',
      },
    ]);
  });
});
