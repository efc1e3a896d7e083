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
