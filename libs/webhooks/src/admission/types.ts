// What a webhook implements, as controller-runtime's pkg/webhook/admission CustomDefaulter and CustomValidator: a
// defaulter mutates the object it is given; a validator returns warnings or throws an AdmissionError (a Kubernetes
// Status: 422 Invalid with field causes, 403 Forbidden, ...), which the webhook server answers as a denial.
import type { KubeObject } from '@capi/apimachinery';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The parts of an AdmissionRequest (admission/v1) a defaulter or validator may look at. */
export interface AdmissionRequestInfo {
  operation: AdmissionOperation;
  /** Subresource written, e.g. "status" or "scale"; empty for the object itself. */
  subResource?: string;
  dryRun?: boolean;
  /** The object before the change, on UPDATE (and DELETE); defaulters that look at it read it here. */
  oldObject?: KubeObject;
  userInfo?: { username?: string; groups?: string[] };
}

/** Warnings returned to the client (the `Warning:` lines kubectl prints). */
export type Warnings = string[];

export interface CustomDefaulter<T extends KubeObject = KubeObject> {
  /** Sets defaults on `obj` in place (the server diffs it against the request's object into a JSON patch). */
  default(obj: T, req: AdmissionRequestInfo): void | Promise<void>;
}

export interface CustomValidator<T extends KubeObject = KubeObject> {
  validateCreate(obj: T, req: AdmissionRequestInfo): Warnings | void | Promise<Warnings | void>;
  validateUpdate(oldObj: T, newObj: T, req: AdmissionRequestInfo): Warnings | void | Promise<Warnings | void>;
  validateDelete(obj: T, req: AdmissionRequestInfo): Warnings | void | Promise<Warnings | void>;
}

/**
 * One kind's webhooks, as upstream's kubebuilder markers declare them (+kubebuilder:webhook: path, groups, resources,
 * versions, verbs, failurePolicy, sideEffects, matchPolicy).
 */
export interface WebhookRegistration {
  group: string;
  version: string;
  kind: string;
  /** Plural resource name, e.g. "machinedeployments". */
  resource: string;
  defaulter?: CustomDefaulter;
  validator?: CustomValidator;
  /** Upstream's `/mutate-<group with dashes>-<version>-<kind lower>` (controller-runtime's generateMutatePath). */
  mutatePath?: string;
  /** Upstream's `/validate-<group with dashes>-<version>-<kind lower>` (generateValidatePath). */
  validatePath?: string;
  /** Verbs the validating webhook is registered for (upstream markers: create;update, some also delete). */
  validateVerbs?: AdmissionOperation[];
  mutateVerbs?: AdmissionOperation[];
  /** The webhook's name where upstream's marker departs from `default.<kind lower>.<group>` (ExtensionConfig's). */
  mutateWebhookName?: string;
  /** Where upstream's marker departs from `validation.<kind lower>.<group>` (e.g. `validation-scale.…`). */
  validateWebhookName?: string;
}

/** controller-runtime's generateMutatePath / generateValidatePath. */
export function webhookPath(kind: 'mutate' | 'validate', group: string, version: string, k: string): string {
  return `/${kind}-${group.replace(/\./g, '-')}-${version}-${k.toLowerCase()}`;
}
