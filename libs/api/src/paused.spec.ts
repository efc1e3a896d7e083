import { setCondition } from './conditions';
import { PAUSED_ANNOTATION } from './constants';
import { ensurePaused, type PausedObject } from './paused';

// Cluster API util/paused/paused_test.go TestEnsurePausedCondition: set on the first reconcile, nothing on the second,
// and after a generation change a write (and an end to the reconcile) only while paused.
describe('ensurePaused', () => {
  const obj = (annotated: boolean): PausedObject => ({
    kind: 'MachineSet',
    metadata: { generation: 1, annotations: annotated ? { [PAUSED_ANNOTATION]: '' } : {} },
  });
  it.each([
    ['unpaused cluster and unpaused object', false, false, false, undefined],
    ['paused cluster and unpaused object', true, false, true, 'Cluster spec.paused is set to true'],
    ['unpaused cluster and paused object', false, true, true, `MachineSet has the ${PAUSED_ANNOTATION} annotation`],
    [
      'paused cluster and paused object',
      true,
      true,
      true,
      `Cluster spec.paused is set to true, MachineSet has the ${PAUSED_ANNOTATION} annotation`,
    ],
  ])('%s', (_name, clusterPaused, annotated, wantPaused, wantMessage) => {
    const o = obj(annotated);
    const first = ensurePaused(o, clusterPaused);
    expect(first).toMatchObject({ paused: wantPaused, action: 'write' });
    expect(first.condition).toEqual({
      type: 'Paused',
      status: wantPaused ? 'True' : 'False',
      reason: wantPaused ? 'Paused' : 'NotPaused',
      ...(wantMessage ? { message: wantMessage } : {}),
      observedGeneration: 1,
    });
    o.status = { conditions: setCondition(undefined, first.condition) };
    expect(ensurePaused(o, clusterPaused)).toMatchObject({ paused: wantPaused, action: 'none' });
    o.metadata.generation = 2;
    const afterGeneration = ensurePaused(o, clusterPaused);
    expect(afterGeneration).toMatchObject({ paused: wantPaused, action: wantPaused ? 'write' : 'set' });
    expect(afterGeneration.condition.observedGeneration).toBe(2);
  });

  it('a change of state is written whichever way it goes', () => {
    const o = obj(false);
    o.status = { conditions: setCondition(undefined, ensurePaused(o, true).condition) };
    expect(ensurePaused(o, false)).toMatchObject({ paused: false, action: 'write' });
  });
});
