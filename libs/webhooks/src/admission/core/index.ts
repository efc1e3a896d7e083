// The core Cluster API webhooks (upstream core/webhooks/admission: machinedeployment.go, machineset.go, machine.go),
// registered as upstream's +kubebuilder:webhook markers declare them.
import { CLUSTER_GROUP } from '@capi/api';
import { type CustomDefaulter, type CustomValidator, type WebhookRegistration, webhookPath } from '../types';
import { MachineWebhook } from './machine';
import { MachineDeploymentWebhook } from './machinedeployment';
import { MachineSetWebhook } from './machineset';
import type { CoreWebhookOptions } from './validation';

export { MachineWebhook, DEFAULT_NODE_DELETION_TIMEOUT_SECONDS } from './machine';
export { MachineDeploymentWebhook } from './machinedeployment';
export { MachineSetWebhook } from './machineset';
export type { CoreWebhookFeatureGates, CoreWebhookOptions } from './validation';

const VERSION = 'v1beta2';

function registration(kind: string, resource: string, hook: CustomDefaulter & CustomValidator): WebhookRegistration {
  return {
    group: CLUSTER_GROUP,
    version: VERSION,
    kind,
    resource,
    defaulter: hook,
    validator: hook,
    mutatePath: webhookPath('mutate', CLUSTER_GROUP, VERSION, kind),
    validatePath: webhookPath('validate', CLUSTER_GROUP, VERSION, kind),
    // All three markers: verbs=create;update for both the mutating and the validating webhook.
    mutateVerbs: ['CREATE', 'UPDATE'],
    validateVerbs: ['CREATE', 'UPDATE'],
  };
}

/** MachineDeployment, MachineSet and Machine webhooks. */
export function coreWebhooks(opts: CoreWebhookOptions = {}): WebhookRegistration[] {
  return [
    registration('MachineDeployment', 'machinedeployments', new MachineDeploymentWebhook(opts)),
    registration('MachineSet', 'machinesets', new MachineSetWebhook(opts)),
    registration('Machine', 'machines', new MachineWebhook(opts)),
  ];
}
