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
