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
