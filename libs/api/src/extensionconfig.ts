// Semantic validation of ExtensionConfig beyond the schema (upstream core/webhooks/admission/extensionconfig.go).
import { labelSelectorAsSelector, LabelSelectorError } from '@capi/apimachinery';
import type { ExtensionConfig } from './types/extensionconfig';

/** Field-path prefixed messages, empty when valid. Meant for admission / the ExtensionConfig controller. */
export function validateExtensionConfig(ext: Pick<ExtensionConfig, 'spec'>): string[] {
  const errors: string[] = [];
  const cc = ext.spec?.clientConfig;
  if (!cc) return ['spec.clientConfig: Required value'];
  const hasUrl = cc.url !== undefined && cc.url !== '';
  const hasService = cc.service !== undefined;
  if (hasUrl === hasService)
    errors.push('spec.clientConfig: Invalid value: exactly one of url or service must be specified');
  if (hasUrl) {
    let u: URL | undefined;
    try {
      u = new URL(cc.url as string);
    } catch {
      errors.push(`spec.clientConfig.url: Invalid value: "${cc.url}": must be a valid URL`);
    }
    if (u) {
      if (u.protocol !== 'https:')
        errors.push(`spec.clientConfig.url: Invalid value: "${cc.url}": expected https scheme`);
      if (u.username || u.password)
        errors.push('spec.clientConfig.url: Invalid value: user information is not permitted in the URL');
      if (u.hash) errors.push('spec.clientConfig.url: Invalid value: fragments are not permitted in the URL');
      if (u.search) errors.push('spec.clientConfig.url: Invalid value: query parameters are not permitted in the URL');
    }
  }
  if (hasService && cc.service) {
    const s = cc.service;
    if (!s.name) errors.push('spec.clientConfig.service.name: Required value');
    if (!s.namespace) errors.push('spec.clientConfig.service.namespace: Required value');
    if (s.port !== undefined && (!Number.isInteger(s.port) || s.port < 1 || s.port > 65535)) {
      errors.push(`spec.clientConfig.service.port: Invalid value: ${s.port}: must be between 1 and 65535, inclusive`);
    }
    if (s.path !== undefined && !s.path.startsWith('/'))
      errors.push(`spec.clientConfig.service.path: Invalid value: "${s.path}": must start with "/"`);
  }
  if (ext.spec.namespaceSelector) {
    try {
      labelSelectorAsSelector(ext.spec.namespaceSelector);
    } catch (e) {
      if (!(e instanceof LabelSelectorError)) throw e;
      errors.push(`spec.namespaceSelector: ${e.message}`);
    }
  }
  return errors;
}
