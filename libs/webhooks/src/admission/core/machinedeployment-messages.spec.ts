// Denial messages of the MachineDeployment webhook, checked word for word against upstream's
// (core/webhooks/admission/machinedeployment.go) for the inputs we used to accept and choke on later.
import type { MachineDeployment } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { MachineDeploymentWebhook } from './machinedeployment';

interface MDInput {
  name: string;
  annotations?: Record<string, string>;
  spec: Record<string, unknown>;
}
const md = ({ name, annotations, spec }: MDInput): MachineDeployment =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    metadata: { name, ...(annotations ? { annotations } : {}) },
    spec,
  }) as unknown as MachineDeployment;
const withSecret = (extra: Record<string, unknown> = {}) => ({
  bootstrap: { dataSecretName: 'data-secret' },
  ...extra,
});
const ru = (maxUnavailable: number | string, maxSurge: number | string) => ({
  type: 'RollingUpdate',
  rollingUpdate: { maxUnavailable, maxSurge },
});

describe('MachineDeployment webhook', () => {
  const webhook = new MachineDeploymentWebhook();
  describe('messages (upstream wording)', () => {
    const message = (obj: MachineDeployment, old?: MachineDeployment): string => {
      try {
        if (old) webhook.validateUpdate(old, obj);
        else webhook.validateCreate(obj);
      } catch (e) {
        return (e as AdmissionError).status.message ?? '';
      }
      throw new Error('expected a denial');
    };
    const valid = (spec: Record<string, unknown> = {}, tmpl: Record<string, unknown> = {}) =>
      md({
        name: 'md',
        spec: { clusterName: 'c', ...spec, template: { spec: withSecret({ clusterName: 'c', ...tmpl }) } },
      });

    it.each<[string, MachineDeployment, string]>([
      [
        'version not-a-version',
        valid({}, { version: 'not-a-version' }),
        '[spec.template.spec.version: Invalid value: "not-a-version": must start with v, spec.template.spec.version: Invalid value: "not-a-version": must be a valid semantic version]',
      ],
      [
        'maxSurge "abc"',
        valid({ rollout: { strategy: ru(0, 'abc') } }),
        'spec.rollout.strategy.rollingUpdate.maxSurge: Invalid value: "abc": must be either an int or a percentage: invalid value for IntOrString: invalid type: string is not a percentage',
      ],
      [
        'maxSurge "x%"',
        valid({ rollout: { strategy: ru(0, 'x%') } }),
        'spec.rollout.strategy.rollingUpdate.maxSurge: Invalid value: "x%": must be either an int or a percentage: invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax',
      ],
      [
        'maxSurge 0 and maxUnavailable 0',
        valid({ rollout: { strategy: ru(0, 0) } }),
        'spec.rollout.strategy.rollingUpdate: Invalid value: "0": maxUnavailable and maxSurge cannot both be 0',
      ],
      [
        'selector not matching the template labels',
        valid({ selector: { matchLabels: { foo: 'bar' } } }),
        'spec.template.metadata.labels: Forbidden: must match spec.selector "foo=bar"',
      ],
      [
        'no bootstrap',
        md({ name: 'md', spec: { clusterName: 'c', template: { spec: { clusterName: 'c' } } } }),
        'spec.template.spec.bootstrap: Required value: expected either spec.template.spec.bootstrap.dataSecretName or spec.template.spec.bootstrap.configRef to be populated',
      ],
      [
        'taints with MachineTaintPropagation disabled',
        valid({}, { taints: [{ key: 'a', effect: 'NoSchedule' }] }),
        'spec.template.spec.taints: Forbidden: taints are not allowed to be set when the feature gate MachineTaintPropagation is disabled',
      ],
      [
        'an unknown skipped preflight check',
        md({
          name: 'md',
          annotations: { 'machineset.cluster.x-k8s.io/skip-preflight-checks': 'All,bogus' },
          spec: { clusterName: 'c', template: { spec: withSecret({ clusterName: 'c' }) } },
        }),
        'metadata.annotations.machineset.cluster.x-k8s.io/skip-preflight-checks: Invalid value: ["bogus"]: skipped preflight check(s) must be among: [All ControlPlaneIsStable ControlPlaneVersionSkew KubeadmVersionSkew KubernetesVersionSkew]',
      ],
    ])('%s', (_n, obj, text) => {
      expect(message(obj)).toBe(`MachineDeployment.cluster.x-k8s.io "md" is invalid: ${text}`);
    });

    it('invalid template labels and annotations', () => {
      const obj = valid();
      obj.spec.template.metadata = {
        labels: { foo: '$invalid-key', bar: 'a'.repeat(64), '/invalid-key': 'foo' },
        annotations: { '/invalid-key': 'foo' },
      };
      expect(message(obj)).toBe(
        'MachineDeployment.cluster.x-k8s.io "md" is invalid: [' +
          "spec.template.metadata.labels: Invalid value: \"$invalid-key\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), " +
          `spec.template.metadata.labels: Invalid value: "${'a'.repeat(64)}": must be no more than 63 bytes, ` +
          'spec.template.metadata.labels: Invalid value: "/invalid-key": prefix part must be non-empty, ' +
          'spec.template.metadata.annotations: Invalid value: "/invalid-key": prefix part must be non-empty]',
      );
    });

    it('a changed clusterName', () => {
      const old = valid();
      const changed = md({
        name: 'md',
        spec: { clusterName: 'd', template: { spec: withSecret({ clusterName: 'd' }) } },
      });
      expect(message(changed, old)).toBe(
        'MachineDeployment.cluster.x-k8s.io "md" is invalid: spec.clusterName: Forbidden: field is immutable',
      );
    });

    it('does not check skipped preflight checks with MachineSetPreflightChecks disabled', () => {
      const obj = md({
        name: 'md',
        annotations: { 'machineset.cluster.x-k8s.io/skip-preflight-checks': 'bogus' },
        spec: { clusterName: 'c', template: { spec: withSecret({ clusterName: 'c' }) } },
      });
      const off = new MachineDeploymentWebhook({ featureGates: { MachineSetPreflightChecks: false } });
      expect(off.validateCreate(obj)).toEqual([]);
    });
  });
});
