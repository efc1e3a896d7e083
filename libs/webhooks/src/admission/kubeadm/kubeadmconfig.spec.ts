// Ported from bootstrap/kubeadm/webhooks/admission/kubeadmconfig_test.go TestKubeadmConfigValidate.
import type { KubeadmConfig, KubeadmConfigSpec } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { defaultFeatureGates } from './common';
import { KubeadmConfigWebhook, validateKubeadmConfigSpec } from './kubeadmconfig';

const config = (spec: Record<string, unknown>): KubeadmConfig =>
  ({
    apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmConfig',
    metadata: { name: 'baz', namespace: 'default' },
    spec: spec as KubeadmConfigSpec,
  }) as KubeadmConfig;

const plain = new KubeadmConfigWebhook();
const ignition = new KubeadmConfigWebhook(defaultFeatureGates({ KubeadmBootstrapFormatIgnition: true }));
const timeouts = (s: number) => ({ timeouts: { controlPlaneComponentHealthCheckSeconds: s } });
const layout = (...percentages: number[]) => ({
  diskSetup: { partitions: [{ device: 'test-device', diskLayout: percentages.map((percentage) => ({ percentage })) }] },
});

describe('KubeadmConfig validation (TestKubeadmConfigValidate)', () => {
  it.each<[string, KubeadmConfigWebhook, boolean, Record<string, unknown>]>([
    ['valid content', plain, false, { files: [{ content: 'foo' }] }],
    ['valid contentFrom', plain, false, { files: [{ contentFrom: { secret: { name: 'foo', key: 'bar' } } }] }],
    [
      'invalid content and contentFrom',
      plain,
      true,
      { files: [{ contentFrom: { secret: { name: 'secret' } }, content: 'foo' }] },
    ],
    [
      'invalid contentFrom without name',
      plain,
      true,
      { files: [{ contentFrom: { secret: { key: 'bar' } }, content: 'foo' }] },
    ],
    [
      'invalid contentFrom without key',
      plain,
      true,
      { files: [{ contentFrom: { secret: { name: 'foo' } }, content: 'foo' }] },
    ],
    ['invalid with duplicate file path', plain, true, { files: [{ content: 'foo' }, { content: 'bar' }] }],
    [
      'valid template contentFormat',
      plain,
      false,
      { files: [{ path: '/x', content: '{{ .controlPlane.version }}', contentFormat: 'go-template' }] },
    ],
    ['valid passwd', plain, false, { users: [{ passwd: 'foo' }] }],
    ['valid passwdFrom', plain, false, { users: [{ passwdFrom: { secret: { name: 'foo', key: 'bar' } } }] }],
    [
      'invalid passwd and passwdFrom',
      plain,
      true,
      { users: [{ passwdFrom: { secret: { name: 'secret' } }, passwd: 'foo' }] },
    ],
    [
      'invalid passwdFrom without name',
      plain,
      true,
      { users: [{ passwdFrom: { secret: { key: 'bar' } }, passwd: 'foo' }] },
    ],
    [
      'invalid passwdFrom without key',
      plain,
      true,
      { users: [{ passwdFrom: { secret: { name: 'foo' } }, passwd: 'foo' }] },
    ],
    [
      'Ignition field is set, format is not Ignition',
      ignition,
      true,
      { ignition: { containerLinuxConfig: { additionalConfig: 'config' } } },
    ],
    ['Ignition field is not set, format is Ignition', ignition, false, { format: 'ignition' }],
    ['format is Ignition, user is inactive', ignition, true, { format: 'ignition', users: [{ inactive: true }] }],
    [
      'format is Ignition, non-GPT partition configured',
      ignition,
      true,
      { format: 'ignition', diskSetup: { partitions: [{ tableType: 'MS-DOS' }] } },
    ],
    ['feature gate disabled, format is Ignition', plain, true, { format: 'ignition' }],
    [
      'feature gate disabled, Ignition field is set',
      plain,
      true,
      { format: 'ignition', ignition: { containerLinuxConfig: { additionalConfig: 'config' } } },
    ],
    [
      'replaceFS specified with Ignition',
      ignition,
      true,
      { format: 'ignition', diskSetup: { filesystems: [{ replaceFS: 'ntfs' }] } },
    ],
    [
      'filesystem partition specified with Ignition',
      ignition,
      true,
      { format: 'ignition', diskSetup: { filesystems: [{ partition: '1' }] } },
    ],
    [
      'file encoding gzip specified with Ignition',
      ignition,
      true,
      { format: 'ignition', files: [{ encoding: 'gzip' }] },
    ],
    [
      'file encoding gzip+base64 specified with Ignition',
      ignition,
      true,
      { format: 'ignition', files: [{ encoding: 'gzip+base64' }] },
    ],
    [
      'bootCommands configured with Ignition format',
      ignition,
      true,
      { format: 'ignition', bootCommands: ['echo $(date)', "echo 'hello BootCommands!'"] },
    ],
    [
      'bootCommands configured with CloudConfig format',
      plain,
      false,
      { format: 'cloud-config', bootCommands: ['echo $(date)', "echo 'hello BootCommands!'"] },
    ],
    [
      'valid ControlPlaneComponentHealthCheckSeconds (JoinConfiguration not defined)',
      plain,
      false,
      { initConfiguration: timeouts(10) },
    ],
    [
      'valid ControlPlaneComponentHealthCheckSeconds (InitConfiguration not defined)',
      plain,
      false,
      { joinConfiguration: timeouts(10) },
    ],
    [
      'valid ControlPlaneComponentHealthCheckSeconds',
      plain,
      false,
      { initConfiguration: timeouts(10), joinConfiguration: timeouts(10) },
    ],
    ['valid DiskLayout percentages', plain, false, layout(30, 70)],
    ['invalid DiskLayout percentages > 100', plain, true, layout(60, 50)],
    ['valid DiskLayout percentages < 100', plain, false, layout(30, 20)],
  ])('%s', (_name, webhook, expectErr, spec) => {
    const obj = config(spec);
    if (expectErr) {
      expect(() => webhook.validateCreate(obj)).toThrow(AdmissionError);
      expect(() => webhook.validateUpdate(obj, obj)).toThrow(AdmissionError);
    } else {
      expect(webhook.validateCreate(obj)).toEqual([]);
      expect(webhook.validateUpdate(obj, obj)).toEqual([]);
    }
  });
});

describe('KubeadmConfig messages (upstream wording)', () => {
  const message = (webhook: KubeadmConfigWebhook, spec: Record<string, unknown>) => {
    try {
      webhook.validateCreate(config(spec));
      return undefined;
    } catch (e) {
      return (e as AdmissionError).status.message;
    }
  };

  it.each<[KubeadmConfigWebhook, Record<string, unknown>, string]>([
    [
      plain,
      { files: [{ path: 'a', contentFrom: { secret: { key: 'k' } } }] },
      'KubeadmConfig.bootstrap.cluster.x-k8s.io "baz" is invalid: spec.files[0].contentFrom.secret.name: Required value: secret file source must specify non-empty secret name',
    ],
    [
      plain,
      { format: 'ignition' },
      'KubeadmConfig.bootstrap.cluster.x-k8s.io "baz" is invalid: spec.format: Forbidden: can be set only if the KubeadmBootstrapFormatIgnition feature gate is enabled',
    ],
    [
      ignition,
      { format: 'ignition', bootCommands: [] },
      'KubeadmConfig.bootstrap.cluster.x-k8s.io "baz" is invalid: spec.bootCommands: Forbidden: not supported when spec.format is set to: "ignition"',
    ],
    [
      ignition,
      { format: 'ignition', diskSetup: { partitions: [{ tableType: 'mbr' }] } },
      'KubeadmConfig.bootstrap.cluster.x-k8s.io "baz" is invalid: spec.diskSetup.partitions[0].tableType: Invalid value: "mbr": only partition type "gpt" is supported when spec.format is set to "ignition"',
    ],
    [
      plain,
      layout(60, 50),
      'KubeadmConfig.bootstrap.cluster.x-k8s.io "baz" is invalid: spec.diskSetup.partitions[0].diskLayout: Invalid value: 110: the sum of all partition percentages must not be greater than 100',
    ],
  ])('%#', (webhook, spec, expected) => {
    expect(message(webhook, spec)).toBe(expected);
  });

  it('KCP (isKCP) requires the same controlPlaneComponentHealthCheckSeconds in init and join', () => {
    const errs = validateKubeadmConfigSpec(
      { initConfiguration: timeouts(10) } as KubeadmConfigSpec,
      true,
      'spec.kubeadmConfigSpec',
      defaultFeatureGates(),
    );
    const msg =
      'controlPlaneComponentHealthCheckSeconds must be set to the same value both in initConfiguration.timeouts (10) and in joinConfiguration.timeouts (unset)';
    expect(errs).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.kubeadmConfigSpec.initConfiguration.timeouts.controlPlaneComponentHealthCheckSeconds',
        badValue: '10',
        detail: msg,
      },
      {
        type: 'FieldValueInvalid',
        field: 'spec.kubeadmConfigSpec.joinConfiguration.timeouts.controlPlaneComponentHealthCheckSeconds',
        badValue: 'unset',
        detail: msg,
      },
    ]);
  });

  it('a join discovery kubeconfig user may not have both authProvider and exec', () => {
    const user = { authProvider: { name: 'p' }, exec: { command: 'c' } };
    const errs = validateKubeadmConfigSpec(
      { joinConfiguration: { discovery: { file: { kubeConfig: { user } } } } } as KubeadmConfigSpec,
      false,
      'spec',
      defaultFeatureGates(),
    );
    expect(errs).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.joinConfiguration.discovery.file.kubeconfig.user',
        badValue: user,
        detail: 'only one of authProvider or exec must be defined',
      },
    ]);
  });
});
