// ExtensionConfig defaulting and validation, as upstream core/webhooks/admission/extensionconfig.go.
import { FeatureGates } from '@capi/controller-runtime';
import { ExtensionConfigGVK, type ExtensionConfig } from '@capi/api';
import { isDNS1035Label, isDNS1123Label, labelSelectorAsSelector } from '@capi/apimachinery';
import { AdmissionError, fieldError, fieldErrorText, invalidError, type FieldError } from '../field-errors';
import type { CustomDefaulter, CustomValidator, Warnings } from '../types';
import { GoURLError, parseRequestURI } from '../util/go-net';
import { goLabelSelector, isValidPortNum } from '../util/values';

export interface ExtensionConfigWebhookOptions {
  /** ExtensionConfig is behind the RuntimeSDK gate; defaults to upstream's defaults (disabled). */
  featureGates?: FeatureGates;
}

type ServiceReference = NonNullable<ExtensionConfig['spec']['clientConfig']['service']>;

/** ServiceReference.IsDefined: any field set. */
const serviceDefined = (s: ServiceReference | undefined): s is ServiceReference =>
  !!s && (!!s.name || !!s.namespace || !!s.path || s.port !== undefined);

/**
 * controller-runtime's admission.Denied for an error that is no API status (upstream returns a bare field.Error when
 * the gate is off): 403 Forbidden with the error's text.
 */
function denied(e: FieldError): AdmissionError {
  const message = fieldErrorText(e);
  return new AdmissionError({
    apiVersion: 'v1',
    kind: 'Status',
    status: 'Failure',
    message,
    reason: 'Forbidden',
    code: 403,
  });
}

const goError = (e: unknown): string => (e instanceof GoURLError ? e.message : String(e));

export class ExtensionConfigWebhook implements CustomDefaulter<ExtensionConfig>, CustomValidator<ExtensionConfig> {
  private readonly gates: FeatureGates;

  constructor(opts: ExtensionConfigWebhookOptions = {}) {
    this.gates = opts.featureGates ?? FeatureGates.defaults();
  }

  default(ext: ExtensionConfig): void {
    // An empty NamespaceSelector matches every namespace.
    ext.spec.namespaceSelector ??= {};
    const service = ext.spec.clientConfig?.service;
    if (serviceDefined(service)) service.port ??= 443;
  }

  validateCreate(ext: ExtensionConfig): Warnings {
    return this.validate(undefined, ext);
  }

  validateUpdate(oldExt: ExtensionConfig, newExt: ExtensionConfig): Warnings {
    return this.validate(oldExt, newExt);
  }

  validateDelete(): Warnings {
    return [];
  }

  validate(_old: ExtensionConfig | undefined, ext: ExtensionConfig): Warnings {
    if (!this.gates.enabled('RuntimeSDK'))
      throw denied(fieldError.forbidden('spec', 'can be set only if the RuntimeSDK feature flag is enabled'));
    const errs: FieldError[] = [];
    const name = ext.metadata.name ?? '';
    const nameErrs = isDNS1123Label(name);
    if (nameErrs.length) {
      errs.push(
        fieldError.invalid(
          'metadata.name',
          name,
          // Go's %s of a []string.
          `ExtensionConfig name should be a valid DNS1123 label name: [${nameErrs.join(' ')}]`,
        ),
      );
    }
    errs.push(...validateExtensionConfigSpec(ext));
    if (errs.length) throw invalidError(ExtensionConfigGVK.group, ExtensionConfigGVK.kind, name, errs);
    return [];
  }
}

/** Upstream's validateExtensionConfigSpec. */
export function validateExtensionConfigSpec(e: ExtensionConfig): FieldError[] {
  const errs: FieldError[] = [];
  const url = e.spec.clientConfig?.url ?? '';
  const service = e.spec.clientConfig?.service;
  const hasService = serviceDefined(service);

  if (url === '' && !hasService)
    errs.push(fieldError.required('spec.clientConfig', 'either url or service must be defined'));
  if (url !== '' && hasService)
    errs.push(fieldError.forbidden('spec.clientConfig', 'only one of url or service can be defined'));

  if (url !== '') {
    try {
      const uri = parseRequestURI(url);
      if (uri.scheme !== 'https') {
        errs.push(
          fieldError.invalid(
            'spec.clientConfig.url',
            url,
            "'https' is the only allowed URL scheme, e.g. https://example.com",
          ),
        );
      }
    } catch (err) {
      errs.push(
        fieldError.invalid(
          'spec.clientConfig.url',
          url,
          `must be a valid URL, e.g. https://example.com: ${goError(err)}`,
        ),
      );
    }
  }

  if (service && hasService) {
    const s = service;
    const name = s.name ?? '';
    const namespace = s.namespace ?? '';
    if (name === '') errs.push(fieldError.required('spec.clientConfig.service.name', 'must not be empty'));
    for (const msg of isDNS1035Label(name)) errs.push(fieldError.invalid('spec.clientConfig.service.name', name, msg));
    if (namespace === '') errs.push(fieldError.required('spec.clientConfig.service.namespace', 'must not be empty'));
    for (const msg of isDNS1123Label(namespace))
      errs.push(fieldError.invalid('spec.clientConfig.service.namespace', namespace, msg));
    const path = s.path ?? '';
    if (path !== '') {
      try {
        parseRequestURI(path);
      } catch (err) {
        errs.push(
          fieldError.invalid(
            'spec.clientConfig.service.path',
            path,
            `must be a valid URL path e.g. /path/to/hook: ${goError(err)}`,
          ),
        );
      }
      if (!path.startsWith('/'))
        errs.push(
          fieldError.invalid('spec.clientConfig.service.path', path, 'must start with "/" to be a valid URL path'),
        );
    }
    if (s.port !== undefined) {
      for (const msg of isValidPortNum(s.port))
        errs.push(fieldError.invalid('spec.clientConfig.service.port', s.port, msg));
    }
  }

  if (!e.spec.namespaceSelector) errs.push(fieldError.required('spec.namespaceSelector', 'must be defined'));
  else {
    try {
      labelSelectorAsSelector(e.spec.namespaceSelector);
    } catch (err) {
      errs.push(
        fieldError.invalid('spec.namespaceSelector', goLabelSelector(e.spec.namespaceSelector), (err as Error).message),
      );
    }
  }
  return errs;
}
