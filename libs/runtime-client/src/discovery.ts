// Discovery of an ExtensionConfig's handlers: call, default, validate (upstream: client.Discover + validateExtensionDiscovery).
import {
  DEFAULT_HANDLER_TIMEOUT_SECONDS,
  FAILURE_POLICIES,
  HOOKS_API_VERSION,
  MAX_HANDLER_TIMEOUT_SECONDS,
  type DiscoveryRequest,
  type DiscoveryResponse,
  type FailurePolicy,
} from '@capi/api';
import { parseGroupVersion } from '@capi/apimachinery';
import { hookDescriptor, isKnownHook } from './catalog';
import { DiscoveryError } from './errors';
import type { ExtensionConfig, ExtensionHandlerStatus } from './extension-config';
import { invokeHandler } from './invoke';
import type { RuntimeSdkMetrics } from './metrics';
import type { ExtensionTransport } from './transport';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Applies defaults and the validation rules of upstream defaultAndValidateDiscoveryResponse
 * (internal/runtime/client/client.go) to a discovery response.
 * Returns handlers with registered names "<handler>.<extensionConfigName>"; throws DiscoveryError listing every problem.
 */
export function validateDiscoveryResponse(
  extensionConfigName: string,
  response: DiscoveryResponse,
): ExtensionHandlerStatus[] {
  const errors: string[] = [];
  const seen = new Set<string>();
  const handlers: ExtensionHandlerStatus[] = [];
  for (const h of response.handlers ?? []) {
    const timeoutSeconds = h.timeoutSeconds ?? DEFAULT_HANDLER_TIMEOUT_SECONDS;
    const failurePolicy = (h.failurePolicy ?? 'Fail') as FailurePolicy;
    if (seen.has(h.name)) errors.push(`duplicate name for handler ${h.name} found`);
    seen.add(h.name);
    if (h.name.length > 63 || !DNS1123_LABEL.test(h.name)) {
      errors.push(
        `handler name ${JSON.stringify(h.name)} is not valid: must be a DNS-1123 label (lower case alphanumeric characters or '-', at most 63 characters)`,
      );
    }
    if (timeoutSeconds < 0 || timeoutSeconds > MAX_HANDLER_TIMEOUT_SECONDS) {
      errors.push(
        `handler ${h.name} timeoutSeconds ${timeoutSeconds} must be between 0 and ${MAX_HANDLER_TIMEOUT_SECONDS}`,
      );
    }
    if (!FAILURE_POLICIES.includes(failurePolicy)) {
      errors.push(
        `handler ${h.name} failurePolicy must be one of ${FAILURE_POLICIES.join(', ')}, got ${JSON.stringify(failurePolicy)}`,
      );
    }
    try {
      const gv = parseGroupVersion(h.requestHook.apiVersion);
      if (!isKnownHook({ ...gv, hook: h.requestHook.hook })) {
        errors.push(
          `handler ${h.name} requestHook ${h.requestHook.apiVersion}, Hook=${h.requestHook.hook} is not known to the catalog`,
        );
      }
    } catch (e) {
      errors.push(`handler ${h.name} requestHook.apiVersion: ${(e as Error).message}`);
    }
    // status.handlers[].timeoutSeconds is omitempty (CRD minimum 1): a valid 0 is not written; calls then use the default.
    handlers.push({
      name: `${h.name}.${extensionConfigName}`,
      requestHook: { ...h.requestHook },
      ...(timeoutSeconds !== 0 ? { timeoutSeconds } : {}),
      failurePolicy,
    });
  }
  if (errors.length > 0)
    throw new DiscoveryError(
      `discovery response of ExtensionConfig ${extensionConfigName} is invalid: ${errors.join('; ')}`,
    );
  return handlers;
}

/**
 * Calls discovery for an ExtensionConfig. Returns a copy of it with `status.handlers` set to the validated handlers
 * (conditions are the reconciler's job). Any failure throws (DiscoveryError, or ExtensionCallError for the HTTP part).
 */
export async function discoverExtension(
  ec: ExtensionConfig,
  transport: ExtensionTransport,
  opts: { metrics?: RuntimeSdkMetrics } = {},
): Promise<ExtensionConfig> {
  const name = ec.metadata.name;
  if (!name) throw new DiscoveryError('ExtensionConfig has no metadata.name');
  const request: DiscoveryRequest = { apiVersion: HOOKS_API_VERSION, kind: 'DiscoveryRequest' };
  const response = await invokeHandler(
    {
      transport,
      clientConfig: ec.spec?.clientConfig ?? {},
      gvh: hookDescriptor('Discovery').gvh,
      hook: 'Discovery',
      timeoutSeconds: DEFAULT_HANDLER_TIMEOUT_SECONDS,
      metrics: opts.metrics,
    },
    request,
  );
  if (response.status === 'Failure') {
    throw new DiscoveryError(
      `failed to discover extension ${JSON.stringify(name)}: got failure response with message ${JSON.stringify(response.message ?? '')}`,
    );
  }
  const handlers = validateDiscoveryResponse(name, response);
  const copy = structuredClone(ec);
  copy.status = { ...(copy.status ?? {}), handlers };
  return copy;
}
