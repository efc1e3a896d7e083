export type {
  AdmissionOperation,
  AdmissionRequestInfo,
  CustomDefaulter,
  CustomValidator,
  Warnings,
  WebhookRegistration,
} from './admission/types';
export { webhookPath } from './admission/types';
export {
  AdmissionError,
  aggregateFieldErrors,
  badRequestError,
  deniedError,
  errorBody,
  fieldError,
  fieldErrorText,
  forbiddenError,
  invalidError,
  OMIT,
  type FieldError,
  type FieldErrorType,
} from './admission/field-errors';
export {
  coreWebhooks,
  type CoreWebhookFeatureGates,
  type CoreWebhookOptions,
  DEFAULT_NODE_DELETION_TIMEOUT_SECONDS,
  MachineDeploymentWebhook,
  MachineSetWebhook,
  MachineWebhook,
} from './admission/core';
export { miscWebhooks, type MiscWebhooksOptions } from './admission/core/misc';
export {
  DEFAULT_NODE_STARTUP_TIMEOUT_SECONDS,
  MachineHealthCheckWebhook,
  type MachineHealthCheckWebhookOptions,
} from './admission/core/machinehealthcheck';
export {
  ExtensionConfigWebhook,
  type ExtensionConfigWebhookOptions,
  validateExtensionConfigSpec,
} from './admission/core/extensionconfig';
export { MachineDrainRuleWebhook } from './admission/core/machinedrainrule';
export { ClusterWebhook, type ClusterWebhookOptions } from './admission/core/cluster';
export {
  applyPreviousKubeadmConfigDefaults,
  defaultFeatureGates,
  KubeadmConfigTemplateWebhook,
  KubeadmConfigWebhook,
  KubeadmControlPlaneScaleValidator,
  KubeadmControlPlaneWebhook,
  kubeadmWebhooks,
  SKIP_COREDNS_ANNOTATION,
  TOPOLOGY_DRY_RUN_ANNOTATION,
  validateKubeadmConfigSpec,
  type FeatureGateReader,
  type KubeadmControlPlaneReader,
  type KubeadmWebhooksOptions,
  type Scale,
} from './admission/kubeadm';
export {
  allowed,
  complete,
  defaultingHandler,
  denied,
  errored,
  validatingHandler,
  type AdmissionHandler,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReview,
  type HandlerResponse,
} from './server/review';
export {
  CertWatcher,
  DEFAULT_CERT_WATCH_INTERVAL_MS,
  readServingCertificate,
  type ServingCertificate,
} from './server/cert-watcher';
export {
  DEFAULT_WEBHOOK_CERT_DIR,
  DEFAULT_WEBHOOK_CERT_NAME,
  DEFAULT_WEBHOOK_KEY_NAME,
  DEFAULT_WEBHOOK_PORT,
  MAX_REQUEST_SIZE,
  WebhookServer,
  webhookRoutes,
  type WebhookServerLogger,
  type WebhookServerOptions,
} from './server/server';
export {
  MUTATING_WEBHOOK_CONFIGURATION,
  VALIDATING_WEBHOOK_CONFIGURATION,
  webhookConfigurations,
  webhookName,
  type WebhookConfiguration,
  type WebhookConfigurationOptions,
  type WebhookTarget,
} from './server/configurations';
export { WEBHOOK_REGISTRATIONS } from './server/tokens';
