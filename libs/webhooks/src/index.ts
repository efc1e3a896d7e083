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
