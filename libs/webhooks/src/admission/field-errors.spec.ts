import { fieldError, invalidError, errorBody, OMIT } from './field-errors';

// Messages as k8s.io/apimachinery's field.Error and apierrors.NewInvalid print them.
describe('field errors', () => {
  it.each([
    [
      fieldError.invalid('spec.replicas', -1, 'must be greater than or equal to 0'),
      'Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      fieldError.invalid('spec.version', 'garbage', 'must be a valid semantic version'),
      'Invalid value: "garbage": must be a valid semantic version',
    ],
    [fieldError.required('spec.clusterName'), 'Required value'],
    [fieldError.required('spec.clusterName', 'must be set'), 'Required value: must be set'],
    [fieldError.forbidden('spec.clusterName', 'field is immutable'), 'Forbidden: field is immutable'],
    [fieldError.notSupported('spec.strategy', 'X', ['A', 'B']), 'Unsupported value: "X": supported values: "A", "B"'],
    [fieldError.invalid('spec.x', OMIT, 'bad'), 'Invalid value: bad'],
    [fieldError.invalid('spec.x', undefined, 'bad'), 'Invalid value: "null": bad'],
  ])('%j', (e, body) => {
    expect(errorBody(e)).toBe(body);
  });

  it('invalidError: 422 Invalid, the aggregate message and one cause per error', () => {
    const err = invalidError('cluster.x-k8s.io', 'MachineDeployment', 'md', [
      fieldError.invalid('spec.replicas', -1, 'must be greater than or equal to 0'),
      fieldError.forbidden('spec.clusterName', 'field is immutable'),
    ]);
    expect(err.status).toEqual({
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message:
        'MachineDeployment.cluster.x-k8s.io "md" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.clusterName: Forbidden: field is immutable]',
      details: {
        name: 'md',
        group: 'cluster.x-k8s.io',
        kind: 'MachineDeployment',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: -1: must be greater than or equal to 0',
            field: 'spec.replicas',
          },
          { reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable', field: 'spec.clusterName' },
        ],
      },
    });
  });
});
