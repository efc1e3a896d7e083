// The kubeadm bootstrap and control plane webhooks, registered as upstream's +kubebuilder:webhook markers declare
// them (controlplane/kubeadm/webhooks/admission, bootstrap/kubeadm/webhooks/admission).
import { BOOTSTRAP_GROUP, CONTROLPLANE_GROUP } from '@capi/api';
import type { CustomDefaulter, CustomValidator, WebhookRegistration } from '../types';
import { webhookPath } from '../types';
import { defaultFeatureGates, type FeatureGateReader } from './common';
import { KubeadmConfigWebhook } from './kubeadmconfig';
import { KubeadmConfigTemplateWebhook } from './kubeadmconfigtemplate';
import { KubeadmControlPlaneWebhook } from './kubeadmcontrolplane';
import { KubeadmControlPlaneScaleValidator, type KubeadmControlPlaneReader } from './kubeadmcontrolplane-scale';

export { defaultFeatureGates, type FeatureGateReader } from './common';
export { KubeadmConfigWebhook, validateKubeadmConfigSpec } from './kubeadmconfig';
export {
  applyPreviousKubeadmConfigDefaults,
  KubeadmConfigTemplateWebhook,
  TOPOLOGY_DRY_RUN_ANNOTATION,
} from './kubeadmconfigtemplate';
export { KubeadmControlPlaneWebhook, SKIP_COREDNS_ANNOTATION } from './kubeadmcontrolplane';
export {
  KubeadmControlPlaneScaleValidator,
  type KubeadmControlPlaneReader,
  type Scale,
} from './kubeadmcontrolplane-scale';

export interface KubeadmWebhooksOptions {
  /** Feature gates (KubeadmBootstrapFormatIgnition, MachineTaintPropagation); upstream defaults when omitted. */
  gates?: FeatureGateReader;
  /**
   * Reads a KubeadmControlPlane for the kubeadmcontrolplanes/scale validator; without it that webhook is not
   * registered (it cannot tell stacked from external etcd).
   */
  readKubeadmControlPlane?: KubeadmControlPlaneReader;
}

const V1BETA2 = 'v1beta2';
const CREATE_UPDATE = ['CREATE', 'UPDATE'] as const;

/** KubeadmControlPlane, KubeadmControlPlane scale, KubeadmConfig and KubeadmConfigTemplate webhooks. */
export function kubeadmWebhooks(opts: KubeadmWebhooksOptions = {}): WebhookRegistration[] {
  const gates = opts.gates ?? defaultFeatureGates();
  const kcp = new KubeadmControlPlaneWebhook(gates);
  const template = new KubeadmConfigTemplateWebhook(gates);
  const regs: WebhookRegistration[] = [
    {
      group: CONTROLPLANE_GROUP,
      version: V1BETA2,
      kind: 'KubeadmControlPlane',
      resource: 'kubeadmcontrolplanes',
      defaulter: kcp as CustomDefaulter,
      validator: kcp as CustomValidator,
      mutatePath: webhookPath('mutate', CONTROLPLANE_GROUP, V1BETA2, 'KubeadmControlPlane'),
      validatePath: webhookPath('validate', CONTROLPLANE_GROUP, V1BETA2, 'KubeadmControlPlane'),
      mutateVerbs: [...CREATE_UPDATE],
      validateVerbs: [...CREATE_UPDATE],
    },
  ];
  if (opts.readKubeadmControlPlane) {
    regs.push({
      group: CONTROLPLANE_GROUP,
      version: V1BETA2,
      kind: 'KubeadmControlPlane',
      resource: 'kubeadmcontrolplanes/scale',
      validator: new KubeadmControlPlaneScaleValidator(opts.readKubeadmControlPlane) as CustomValidator,
      // Registered by hand upstream (kubeadmcontrolplane_scale.go), not by the generated path.
      validatePath: '/validate-scale-controlplane-cluster-x-k8s-io-v1beta2-kubeadmcontrolplane',
      validateWebhookName: 'validation-scale.kubeadmcontrolplane.controlplane.cluster.x-k8s.io',
      validateVerbs: ['UPDATE'],
    });
  }
  regs.push(
    {
      group: BOOTSTRAP_GROUP,
      version: V1BETA2,
      kind: 'KubeadmConfig',
      resource: 'kubeadmconfigs',
      validator: new KubeadmConfigWebhook(gates) as CustomValidator,
      validatePath: webhookPath('validate', BOOTSTRAP_GROUP, V1BETA2, 'KubeadmConfig'),
      validateVerbs: [...CREATE_UPDATE],
    },
    {
      group: BOOTSTRAP_GROUP,
      version: V1BETA2,
      kind: 'KubeadmConfigTemplate',
      resource: 'kubeadmconfigtemplates',
      defaulter: template as CustomDefaulter,
      validator: template as CustomValidator,
      mutatePath: webhookPath('mutate', BOOTSTRAP_GROUP, V1BETA2, 'KubeadmConfigTemplate'),
      validatePath: webhookPath('validate', BOOTSTRAP_GROUP, V1BETA2, 'KubeadmConfigTemplate'),
      mutateVerbs: [...CREATE_UPDATE],
      validateVerbs: [...CREATE_UPDATE],
    },
  );
  return regs;
}
