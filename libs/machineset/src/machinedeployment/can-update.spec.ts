import type { KubeObject } from '@capi/apimachinery';
import type { Client, ObjectRef } from '@capi/controller-runtime';
import type { CoverageRuntimeClient } from '@capi/inplace';
import type { ContractVersionResolver } from '@capi/external';
import { DEFAULT_CAN_UPDATE_CACHE_TTL_MS, MachineSetInPlaceChecker, TemplateNotFoundError } from './can-update';
import { machineSet } from '../testing/fixtures';

const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta2';
const template = (name: string, image: string): KubeObject => ({
  apiVersion: INFRA,
  kind: 'TestMachineTemplate',
  metadata: { name, namespace: 'ns' },
  spec: { template: { spec: { image } } },
});

function setup(opts: { templates?: KubeObject[]; extensions?: string[]; patch?: object | null } = {}) {
  const objects = new Map(
    (opts.templates ?? [template('tmpl', 'v1'), template('tmpl-v2', 'v2')]).map((t) => [t.metadata.name, t]),
  );
  const client = { tryGet: async (ref: ObjectRef) => objects.get(ref.name) } as unknown as Client;
  const resolver = {
    objectRef: async (ref: { kind: string; name: string }, namespace?: string) => ({
      apiVersion: INFRA,
      kind: ref.kind,
      name: ref.name,
      namespace,
    }),
  } as unknown as ContractVersionResolver;
  const calls = { getAll: 0, call: 0 };
  let extensions = opts.extensions ?? ['can-update-machineset.ext'];
  // Covers the image change with a merge patch of the infra template.
  const runtimeClient: CoverageRuntimeClient = {
    getAllExtensions: async () => (calls.getAll++, extensions),
    callExtension: (async () => {
      calls.call++;
      const patch = opts.patch === undefined ? { spec: { template: { spec: { image: 'v2' } } } } : opts.patch;
      return {
        status: 'Success',
        ...(patch
          ? {
              infrastructureMachineTemplatePatch: {
                patchType: 'JSONMergePatch',
                patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
              },
            }
          : {}),
      };
    }) as unknown as CoverageRuntimeClient['callExtension'],
  };
  let now = 0;
  const checker = new MachineSetInPlaceChecker({ client, resolver, runtimeClient, now: () => now });
  const oldMS = machineSet('old');
  const newMS = machineSet('new');
  newMS.spec.template.spec.infrastructureRef = { ...newMS.spec.template.spec.infrastructureRef, name: 'tmpl-v2' };
  return {
    checker,
    calls,
    oldMS,
    newMS,
    advance: (ms: number) => (now += ms),
    setExtensions: (e: string[]) => (extensions = e),
  };
}

describe('MachineSetInPlaceChecker', () => {
  it('answers from the extension once per pair, listing the extensions on every call', async () => {
    const s = setup();
    expect(await s.checker.canUpdate(s.oldMS, s.newMS)).toBe(true);
    expect(await s.checker.canUpdate(s.oldMS, s.newMS)).toBe(true);
    expect(s.calls).toEqual({ getAll: 2, call: 1 });
  });
  it('consults the cache only after listing the extensions: none registered any more means no', async () => {
    const s = setup();
    expect(await s.checker.canUpdate(s.oldMS, s.newMS)).toBe(true);
    s.setExtensions([]);
    expect(await s.checker.canUpdate(s.oldMS, s.newMS)).toBe(false);
    expect(s.calls.call).toBe(1);
  });
  it('keeps an answer 24 hours (upstream TTL), not 5 minutes', async () => {
    const s = setup();
    expect(DEFAULT_CAN_UPDATE_CACHE_TTL_MS).toBe(24 * 60 * 60_000);
    await s.checker.canUpdate(s.oldMS, s.newMS);
    s.advance(5 * 60_000 + 1);
    await s.checker.canUpdate(s.oldMS, s.newMS);
    expect(s.calls.call).toBe(1);
    s.advance(24 * 60 * 60_000);
    await s.checker.canUpdate(s.oldMS, s.newMS);
    expect(s.calls.call).toBe(2);
  });
  it.each([
    ['the desired', [template('tmpl', 'v1')]],
    ['the current', [template('tmpl-v2', 'v2')]],
  ])('fails when %s infrastructure template is missing (no silent rollout)', async (_label, templates) => {
    const s = setup({ templates });
    await expect(s.checker.canUpdate(s.oldMS, s.newMS)).rejects.toBeInstanceOf(TemplateNotFoundError);
    await expect(s.checker.canUpdate(s.oldMS, s.newMS)).rejects.toThrow(
      /TestMachineTemplate ns\/tmpl(-v2)? from MachineSet (old|new): not found/,
    );
    expect(s.calls).toEqual({ getAll: 0, call: 0 });
  });
  it('fails when a referenced bootstrap template is missing, says no when only one side has one', async () => {
    const s = setup();
    const kct = { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name: 'kct' };
    const withBootstrap = {
      ...s.newMS,
      spec: {
        ...s.newMS.spec,
        template: { ...s.newMS.spec.template, spec: { ...s.newMS.spec.template.spec, bootstrap: { configRef: kct } } },
      },
    };
    await expect(s.checker.canUpdate(s.oldMS, withBootstrap)).rejects.toBeInstanceOf(TemplateNotFoundError);
    const s2 = setup({
      templates: [
        template('tmpl', 'v1'),
        template('tmpl-v2', 'v2'),
        { ...template('kct', 'x'), kind: 'KubeadmConfigTemplate' },
      ],
    });
    expect(await s2.checker.canUpdate(s2.oldMS, withBootstrap)).toBe(false);
    expect(s2.calls).toEqual({ getAll: 0, call: 0 });
  });
});

// Upstream matchesUnstructuredSpec (core/reconcilers/machinedeployment/machinedeployment_canupdatemachineset.go): a
// template without spec.template.spec compares as an empty object instead of failing the MachineDeployment reconcile.
describe('MachineSetInPlaceChecker: templates without spec.template.spec', () => {
  const bare = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
    ...template(name, 'x'),
    spec,
  });
  it('two templates without spec.template.spec are equal', async () => {
    const s = setup({ templates: [bare('tmpl'), bare('tmpl-v2', { template: {} })], patch: null });
    expect(await s.checker.canUpdate(s.oldMS, s.newMS)).toBe(true);
  });
  it('an extension may add spec.template.spec to a template that has none', async () => {
    const s = setup({ templates: [bare('tmpl'), template('tmpl-v2', 'v2')] });
    expect(await s.checker.canUpdate(s.oldMS, s.newMS)).toBe(true);
  });
  it('a spec.template.spec on one side only is a difference, not an error', async () => {
    const s = setup({ templates: [template('tmpl', 'v1'), bare('tmpl-v2')], patch: null });
    expect(await s.checker.canUpdate(s.oldMS, s.newMS)).toBe(false);
  });
});
