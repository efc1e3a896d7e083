// The registrations of the MachineHealthCheck, ExtensionConfig, MachineDrainRule and Cluster webhooks, with the paths
// and verbs of upstream's +kubebuilder:webhook markers (core/webhooks/admission/{machinehealthcheck,extensionconfig,
// machinedrainrules,cluster}.go).
import type { FeatureGates } from '@capi/controller-runtime';
import { ClusterGVK, ExtensionConfigGVK, MachineDrainRuleGVK, MachineHealthCheckGVK } from '@capi/api';
import { webhookPath, type AdmissionOperation, type WebhookRegistration } from '../types';
import { ClusterWebhook } from './cluster';
import { ExtensionConfigWebhook } from './extensionconfig';
import { MachineDrainRuleWebhook } from './machinedrainrule';
import { MachineHealthCheckWebhook } from './machinehealthcheck';

export interface MiscWebhooksOptions {
  /** The manager's gates (RuntimeSDK for ExtensionConfig, ClusterTopology for Cluster); upstream defaults if unset. */
  featureGates?: FeatureGates;
}

const CREATE_UPDATE: AdmissionOperation[] = ['CREATE', 'UPDATE'];

function registration(
  gvk: { group: string; version: string; kind: string },
  resource: string,
  parts: Pick<WebhookRegistration, 'defaulter' | 'validator' | 'validateVerbs' | 'mutateWebhookName'>,
): WebhookRegistration {
  return {
    group: gvk.group,
    version: gvk.version,
    kind: gvk.kind,
    resource,
    ...parts,
    ...(parts.defaulter
      ? { mutatePath: webhookPath('mutate', gvk.group, gvk.version, gvk.kind), mutateVerbs: CREATE_UPDATE }
      : {}),
    ...(parts.validator ? { validatePath: webhookPath('validate', gvk.group, gvk.version, gvk.kind) } : {}),
  };
}

export function miscWebhooks(opts: MiscWebhooksOptions = {}): WebhookRegistration[] {
  const mhc = new MachineHealthCheckWebhook();
  const ext = new ExtensionConfigWebhook({ featureGates: opts.featureGates });
  const cluster = new ClusterWebhook({ featureGates: opts.featureGates });
  return [
    registration(MachineHealthCheckGVK, 'machinehealthchecks', {
      defaulter: mhc,
      validator: mhc,
      validateVerbs: CREATE_UPDATE,
    }),
    registration(ExtensionConfigGVK, 'extensionconfigs', {
      // Upstream's marker names it so (core/webhooks/admission/extensionconfig.go).
      mutateWebhookName: 'default.extensionconfig.runtime.addons.cluster.x-k8s.io',
      defaulter: ext,
      validator: ext,
      validateVerbs: CREATE_UPDATE,
    }),
    registration(MachineDrainRuleGVK, 'machinedrainrules', {
      validator: new MachineDrainRuleWebhook(),
      validateVerbs: CREATE_UPDATE,
    }),
    // Upstream validates Cluster deletes as well (ValidateDelete allows them).
    registration(ClusterGVK, 'clusters', {
      defaulter: cluster,
      validator: cluster,
      validateVerbs: ['CREATE', 'UPDATE', 'DELETE'],
    }),
  ];
}
