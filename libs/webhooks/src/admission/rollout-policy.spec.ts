// The InPlaceOnly rollout policy annotation (this project's extension) through the MachineDeployment and
// KubeadmControlPlane validators: an unknown value is a 422 naming the annotation and the supported value.
import type { MachineDeployment } from '@capi/api';
import { AdmissionError } from './field-errors';
import { MachineDeploymentWebhook } from './core/machinedeployment';
import { before, plain } from './kubeadm/kubeadmcontrolplane.fixtures';
import { validateRolloutPolicy } from './rollout-policy';

const KEY = 'in-place-updates.capi-inplace.io/rollout-policy';

describe('validateRolloutPolicy', () => {
  it('accepts no annotation and InPlaceOnly; refuses anything else as not supported', () => {
    expect(validateRolloutPolicy(undefined)).toEqual([]);
    expect(validateRolloutPolicy({ [KEY]: 'InPlaceOnly' })).toEqual([]);
    expect(validateRolloutPolicy({ [KEY]: 'inplaceonly' })).toEqual([
      expect.objectContaining({ type: 'FieldValueNotSupported', field: `metadata.annotations[${KEY}]` }),
    ]);
  });

  it('is part of the MachineDeployment validation (422 with the field)', () => {
    const webhook = new MachineDeploymentWebhook({});
    const md = (value: string) =>
      ({
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'MachineDeployment',
        metadata: { name: 'md', annotations: { [KEY]: value } },
        spec: { clusterName: 'c', template: { spec: { clusterName: 'c', bootstrap: { dataSecretName: 's' } } } },
      }) as unknown as MachineDeployment;
    expect(webhook.validateCreate(md('InPlaceOnly'))).toEqual([]);
    let error: unknown;
    try {
      webhook.validateUpdate(md('InPlaceOnly'), md('Sometimes'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AdmissionError);
    expect((error as AdmissionError).status.code).toBe(422);
    expect((error as Error).message).toContain('supported values: "InPlaceOnly"');
  });

  it('is part of the KubeadmControlPlane validation, on create and update', () => {
    const kcp = (value: string) => {
      const k = structuredClone(before) as typeof before & { metadata: { annotations?: Record<string, string> } };
      k.metadata.annotations = { [KEY]: value };
      return k as never;
    };
    expect(plain.validateCreate(kcp('InPlaceOnly'))).toEqual([]);
    expect(() => plain.validateCreate(kcp('Always'))).toThrow(/rollout-policy.*supported values: "InPlaceOnly"/);
    expect(() => plain.validateUpdate(kcp('InPlaceOnly'), kcp('Always'))).toThrow(AdmissionError);
  });
});
