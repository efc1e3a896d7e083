// Composed updaters (this project's extension): the Machine controller calls UpdateMachine in the Can* order
// (ExtensionConfig name, then handler) and only on the updaters recorded on the Machine as having contributed.
import { IN_PLACE_UPDATERS_ANNOTATION } from '@capi/inplace';
import type { KubeObject } from '@capi/apimachinery';
import type { ExtensionServer } from '@capi/runtime-client';
import { eventually } from '@capi/envtest';
import {
  MACHINE_API,
  annotate,
  conditionOf,
  createNamespace,
  createReadyCluster,
  createRunningMachine,
  inPlaceUpdateCompleted,
  ref,
  triggerInPlaceUpdate,
} from './support/fixtures';
import { registerExtension, startHarness, type Harness } from './support/harness';

jest.setTimeout(60_000);

describe('Machine controller: UpdateMachine on composed updaters (envtest)', () => {
  let h: Harness;
  const ns = 'updaters';
  const calls: { handler: string; machine: string }[] = [];
  const servers: ExtensionServer[] = [];
  const callsFor = (machine: string) => calls.filter((c) => c.machine === machine).map((c) => c.handler);

  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: true });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
    // Handler names chosen so that the registry's name order ("a-update.zz-updater" < "z-update.aa-updater") is the
    // opposite of the composition order (ExtensionConfig aa-updater before zz-updater).
    for (const [config, handler] of [
      ['aa-updater', 'z-update'],
      ['zz-updater', 'a-update'],
    ]) {
      servers.push(
        await registerExtension(h, config, [
          {
            hook: 'UpdateMachine',
            name: handler,
            handle: (req) => {
              calls.push({ handler: `${handler}.${config}`, machine: req.desired.machine.metadata.name! });
              return { retryAfterSeconds: 0, message: `${config} done` };
            },
          },
        ]),
      );
    }
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  const getMachine = (name: string) => h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, name));
  const completed = (name: string) => inPlaceUpdateCompleted(h.client, ns, name);

  it('without a record: every updater, in ExtensionConfig name order (the order of the Can* hooks)', async () => {
    await createRunningMachine(h.client, ns, 'all');
    await triggerInPlaceUpdate(h.client, ns, 'all');
    await completed('all');
    expect(callsFor('all')).toEqual(['z-update.aa-updater', 'a-update.zz-updater']);
  });

  it('with a record: only the updaters that contributed to the accepted patch; the record is removed on completion', async () => {
    await createRunningMachine(h.client, ns, 'only-zz');
    await annotate(h.client, ref(MACHINE_API, 'Machine', ns, 'only-zz'), {
      [IN_PLACE_UPDATERS_ANNOTATION]: 'zz-updater',
    });
    await triggerInPlaceUpdate(h.client, ns, 'only-zz');
    await completed('only-zz');
    expect(callsFor('only-zz')).toEqual(['a-update.zz-updater']);
    expect((await getMachine('only-zz')).metadata.annotations ?? {}).not.toHaveProperty([IN_PLACE_UPDATERS_ANNOTATION]);
  });

  it('a recorded updater without an UpdateMachine handler fails the update instead of calling the others', async () => {
    await createRunningMachine(h.client, ns, 'gone');
    await annotate(h.client, ref(MACHINE_API, 'Machine', ns, 'gone'), {
      [IN_PLACE_UPDATERS_ANNOTATION]: 'removed-updater',
    });
    await triggerInPlaceUpdate(h.client, ns, 'gone');
    await eventually(
      async () => conditionOf(await getMachine('gone'), 'Updating')?.reason === 'InPlaceUpdateFailed',
      'gone InPlaceUpdateFailed',
    );
    expect(callsFor('gone')).toEqual([]);
  });
});
