// The in-process updaters of one app, made to look like discovered extension handlers: each hook an updater
// implements becomes an ExtensionRegistration "<handler>.<name>" whose clientConfig URL has the reserved host
// "<name>.in-process.invalid" (RFC 2606: never resolvable, so it can never reach the network). The RuntimeClient
// lists and calls them like any other handler; the transport (InProcessAwareTransport) hands those URLs to
// dispatch() here instead of HTTPS. So namespace matching, settings, the failure policy, response validation,
// aggregation, caching, metrics and the callers' coverage check and conditions all apply unchanged.
import {
  DEFAULT_HANDLER_TIMEOUT_SECONDS,
  FAILURE_POLICIES,
  HOOKS_API_VERSION,
  MAX_HANDLER_TIMEOUT_SECONDS,
  hookResponseKind,
  type HookName,
} from '@capi/api';
import { hookDescriptor } from '../catalog';
import { ExtensionCallError } from '../errors';
import type { ExtensionRegistration } from '../registry';
import type { TransportResponse } from '../transport';
import type { InPlaceUpdater } from './in-place-updater';

/** Host suffix of in-process registrations' URLs. */
export const IN_PROCESS_HOST_SUFFIX = '.in-process.invalid';

type UpdaterHook = 'CanUpdateMachine' | 'CanUpdateMachineSet' | 'UpdateMachine';
/** Hook → (handler name, method). Handler names are the reference updater's discovery names. */
const HOOKS: ReadonlyArray<{
  hook: UpdaterHook;
  handler: string;
  method: 'canUpdateMachine' | 'canUpdateMachineSet' | 'updateMachine';
}> = [
  { hook: 'CanUpdateMachine', handler: 'can-update-machine', method: 'canUpdateMachine' },
  { hook: 'CanUpdateMachineSet', handler: 'can-update-machineset', method: 'canUpdateMachineSet' },
  { hook: 'UpdateMachine', handler: 'update-machine', method: 'updateMachine' },
];

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A bad in-process updater registration: thrown at start-up, naming the updater and what is wrong. */
export class InPlaceUpdaterRegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InPlaceUpdaterRegistrationError';
  }
}

/** Where an updater was registered, for error messages (e.g. "MyUpdater in MyProviderModule"). */
export interface InPlaceUpdaterSource {
  updater: InPlaceUpdater;
  source: string;
}

export class InProcessUpdaters {
  private updaters: ReadonlyMap<string, InPlaceUpdater> = new Map();

  /** Validates and installs the app's updaters (all at once). Throws InPlaceUpdaterRegistrationError. */
  set(entries: readonly InPlaceUpdaterSource[]): void {
    const next = new Map<string, InPlaceUpdater>();
    const sources = new Map<string, string>();
    for (const { updater, source } of entries) {
      const name = (updater as Partial<InPlaceUpdater> | undefined)?.name;
      if (typeof name !== 'string' || name.length > 63 || !DNS1123_LABEL.test(name)) {
        throw new InPlaceUpdaterRegistrationError(
          `in-place updater ${source}: name ${JSON.stringify(name)} must be a DNS-1123 label (lower case alphanumerics and '-', at most 63)`,
        );
      }
      const previous = sources.get(name);
      if (previous)
        throw new InPlaceUpdaterRegistrationError(
          `in-place updater ${JSON.stringify(name)} is registered twice: ${previous} and ${source}`,
        );
      if (!HOOKS.some((h) => typeof updater[h.method] === 'function')) {
        throw new InPlaceUpdaterRegistrationError(
          `in-place updater ${JSON.stringify(name)} (${source}) implements none of ${HOOKS.map((h) => h.method).join(', ')}`,
        );
      }
      const timeout = updater.timeoutSeconds ?? DEFAULT_HANDLER_TIMEOUT_SECONDS;
      if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_HANDLER_TIMEOUT_SECONDS) {
        throw new InPlaceUpdaterRegistrationError(
          `in-place updater ${JSON.stringify(name)} (${source}): timeoutSeconds ${timeout} must be an integer between 1 and ${MAX_HANDLER_TIMEOUT_SECONDS}`,
        );
      }
      if (updater.failurePolicy !== undefined && !FAILURE_POLICIES.includes(updater.failurePolicy)) {
        throw new InPlaceUpdaterRegistrationError(
          `in-place updater ${JSON.stringify(name)} (${source}): failurePolicy must be one of ${FAILURE_POLICIES.join(', ')}, got ${JSON.stringify(updater.failurePolicy)}`,
        );
      }
      sources.set(name, source);
      next.set(name, updater);
    }
    this.updaters = next;
  }

  names(): string[] {
    return [...this.updaters.keys()];
  }

  /** The registry entries of every implemented hook of every updater. */
  registrations(): ExtensionRegistration[] {
    const out: ExtensionRegistration[] = [];
    for (const [name, updater] of this.updaters) {
      for (const h of HOOKS) {
        if (typeof updater[h.method] !== 'function') continue;
        out.push({
          name: `${h.handler}.${name}`,
          extensionConfigName: name,
          gvh: hookDescriptor(h.hook).gvh,
          timeoutSeconds: updater.timeoutSeconds ?? DEFAULT_HANDLER_TIMEOUT_SECONDS,
          failurePolicy: updater.failurePolicy ?? 'Fail',
          clientConfig: { url: `https://${name}${IN_PROCESS_HOST_SUFFIX}` },
        });
      }
    }
    return out;
  }

  /** True when `url` is an in-process registration's (whether or not the updater exists). */
  handles(url: URL): boolean {
    return url.hostname.endsWith(IN_PROCESS_HOST_SUFFIX);
  }

  /**
   * Calls the updater for `url` (".../<hook>/<handler>") with a JSON copy of `body`. Resolves like an HTTP 200 with
   * the JSON response, so the caller decodes and validates it as any extension's. A throw is a TransportError, no
   * answer within `timeoutMs` a Timeout (the updater's promise is abandoned): both subject to the failure policy.
   */
  async dispatch(url: URL, body: unknown, timeoutMs: number): Promise<TransportResponse> {
    const name = url.hostname.slice(0, -IN_PROCESS_HOST_SUFFIX.length);
    const updater = this.updaters.get(name);
    const handler = url.pathname.split('/').pop();
    const h = HOOKS.find((x) => x.handler === handler);
    const method = h && updater?.[h.method];
    if (!h || !updater || typeof method !== 'function') {
      throw new ExtensionCallError(
        'TransportError',
        `no in-process updater ${JSON.stringify(name)} with handler ${JSON.stringify(handler)}`,
      );
    }
    const request = JSON.parse(JSON.stringify(body));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ExtensionCallError(
              'Timeout',
              `in-process updater ${JSON.stringify(name)} did not answer within ${timeoutMs / 1000}s`,
            ),
          ),
        timeoutMs,
      );
    });
    let response: unknown;
    try {
      response = await Promise.race([
        Promise.resolve().then(() => (method as (r: unknown) => unknown).call(updater, request)),
        timedOut,
      ]);
    } catch (e) {
      if (e instanceof ExtensionCallError) throw e;
      throw new ExtensionCallError(
        'TransportError',
        `in-process updater ${JSON.stringify(name)} threw: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    } finally {
      clearTimeout(timer);
    }
    return { statusCode: 200, body: serialize(h.hook, response) };
  }
}

/** The response as JSON with the envelope filled in; anything that is not an object is left for the decoder to reject. */
function serialize(hook: HookName, response: unknown): string {
  if (response === null || typeof response !== 'object' || Array.isArray(response))
    return JSON.stringify(response ?? null);
  return JSON.stringify({ apiVersion: HOOKS_API_VERSION, kind: hookResponseKind(hook), ...response });
}
