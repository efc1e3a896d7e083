import {
  IN_PLACE_UPDATERS_ANNOTATION,
  recordedUpdaters,
  selectUpdateMachineHandlers,
  updatersAnnotation,
} from './updaters';

const machine = (updaters?: string) => ({
  metadata: {
    name: 'm',
    annotations: (updaters === undefined ? {} : { [IN_PLACE_UPDATERS_ANNOTATION]: updaters }) as Record<string, string>,
  },
});

describe('selectUpdateMachineHandlers: one call order, only the recorded updaters', () => {
  // Registry order (plain name sort) differs from the composition order (ExtensionConfig, then handler).
  const registered = ['a-update.zz-updater', 'z-update.aa-updater', 'update.mm-updater'];

  it('without a record: every handler, in ExtensionConfig name order (the Can* order)', () => {
    expect(selectUpdateMachineHandlers(registered, machine())).toEqual({
      handlers: ['z-update.aa-updater', 'update.mm-updater', 'a-update.zz-updater'],
      missing: [],
    });
    expect(selectUpdateMachineHandlers(registered, machine(' , '))).toEqual({
      handlers: ['z-update.aa-updater', 'update.mm-updater', 'a-update.zz-updater'],
      missing: [],
    });
  });

  it('with a record: only the contributing updaters, still in composition order', () => {
    expect(selectUpdateMachineHandlers(registered, machine('zz-updater,aa-updater'))).toEqual({
      handlers: ['z-update.aa-updater', 'a-update.zz-updater'],
      missing: [],
    });
  });

  it('a recorded updater without an UpdateMachine handler is reported missing', () => {
    expect(selectUpdateMachineHandlers(registered, machine('aa-updater,gone'))).toEqual({
      handlers: ['z-update.aa-updater'],
      missing: ['gone'],
    });
  });

  it('annotation helpers round-trip and write nothing for no contributors', () => {
    expect(updatersAnnotation([])).toEqual({});
    expect(recordedUpdaters({ metadata: { annotations: updatersAnnotation(['b', 'a']) } })).toEqual(['b', 'a']);
  });
});
