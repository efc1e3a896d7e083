// ValidatePodDisruptionBudgetSpec (kubernetes pkg/apis/policy/validation/validation_test.go
// TestValidateMinAvailablePodDisruptionBudgetSpec, TestValidateMinAvailablePodAndMaxUnavailableDisruptionBudgetSpec).
import type { KubeObject } from '@capi/apimachinery';
import { pdbCauses } from './policy';

const pdb = (spec: object) =>
  ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec }) as KubeObject;
const fields = (spec: object) => pdbCauses(pdb(spec)).map((c) => c.field);

describe('pdbCauses', () => {
  it.each([[0], [10], ['0%'], ['10%'], ['100%']])('valid minAvailable / maxUnavailable %p', (v) => {
    expect(pdbCauses(pdb({ minAvailable: v }))).toEqual([]);
    expect(pdbCauses(pdb({ maxUnavailable: v }))).toEqual([]);
  });

  it.each([[-1], ['-1%'], ['101%'], ['abc']])('invalid minAvailable / maxUnavailable %p', (v) => {
    expect(fields({ minAvailable: v })).toEqual(['spec.minAvailable']);
    expect(fields({ maxUnavailable: v })).toEqual(['spec.maxUnavailable']);
  });

  it('minAvailable and maxUnavailable are exclusive', () => {
    expect(pdbCauses(pdb({ minAvailable: 1, maxUnavailable: 1 }))).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec',
        message:
          'Invalid value: {"MinAvailable":1,"Selector":null,"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set',
      },
    ]);
  });

  it('messages as kube words them', () => {
    expect(pdbCauses(pdb({ minAvailable: -1 }))[0].message).toBe(
      'Invalid value: -1: must be greater than or equal to 0',
    );
    expect(pdbCauses(pdb({ maxUnavailable: '101%' }))[0].message).toBe(
      'Invalid value: "101%": must not be greater than 100%',
    );
  });

  it('unhealthyPodEvictionPolicy is IfHealthyBudget or AlwaysAllow', () => {
    expect(fields({ unhealthyPodEvictionPolicy: 'AlwaysAllow' })).toEqual([]);
    expect(fields({ unhealthyPodEvictionPolicy: 'Never' })).toEqual(['spec.unhealthyPodEvictionPolicy']);
  });
});
