import { badExtensionConfigProblems, type BadExtensionConfigResult } from './manager-chaos-extension';
import type { ChangeResult } from './manager-chaos';

const change = (version: string, over: Partial<ChangeResult> = {}): ChangeResult => ({
  version,
  kills: 0,
  converged: true,
  missing: [],
  created: [],
  completedTwice: [],
  seconds: 1,
  ...over,
});

const passing: BadExtensionConfigResult = {
  plainHttpCode: 422,
  plainHttpMessage: "'https' is the only allowed URL scheme",
  unreachableDiscovered: { status: 'False', reason: 'NotDiscovered', message: 'ECONNREFUSED' },
  apiServerUp: true,
  during: change('v1.31.3'),
  afterDelete: change('v1.31.4', { kills: 1 }),
  updaterDiscovered: 'True',
  warmUpFailures: 0,
};

describe('badExtensionConfigProblems', () => {
  it('passes a phase where every check held', () => {
    expect(badExtensionConfigProblems(passing)).toEqual([]);
  });

  it('names each check that did not hold', () => {
    expect(
      badExtensionConfigProblems({
        plainHttpCode: 201,
        plainHttpMessage: '',
        unreachableDiscovered: undefined,
        apiServerUp: false,
        during: change('v1.31.3', { converged: false }),
        afterDelete: change('v1.31.4', { created: ['m-new'] }),
        updaterDiscovered: 'False',
        warmUpFailures: 1,
      }),
    ).toEqual([
      'http:// ExtensionConfig answered 201, want a 422/400 refusal',
      'unreachable ExtensionConfig: Discovered undefined, want False',
      'the embedded API server did not stay up',
      'change v1.31.3 under the bad ExtensionConfig failed',
      'change v1.31.4 after deleting it failed',
      "the reference updater's Discovered is False",
      '1 registry warm-up failure lines after the deletion',
    ]);
    expect(badExtensionConfigProblems({ ...passing, plainHttpCode: 400 })).toEqual([]);
  });
});
