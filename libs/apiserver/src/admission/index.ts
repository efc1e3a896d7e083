export {
  deleteOptions,
  requestOptions,
  WebhookAdmission,
  type AdmissionHooks,
  type AttemptOptions,
  type WriteRequest,
} from './admission';
export { webhookConfigurationCauses, ADMISSION_GROUP, MUTATING_KIND, VALIDATING_KIND } from './config';
