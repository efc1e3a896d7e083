// In-memory registry of discovered handlers, keyed "<handler>.<extensionConfigName>" (upstream: internal/runtime/registry).
// Writers swap in a new immutable map, so readers that hold a snapshot across awaits never see a half-applied update.
import { labelSelectorAsSelector, parseGroupVersion } from '@capi/apimachinery';
import { DEFAULT_HANDLER_TIMEOUT_SECONDS, type FailurePolicy } from '@capi/api';
import type { GroupVersionHook } from './catalog';
import type { ClientConfig, ExtensionConfig, LabelSelector } from './extension-config';

export interface ExtensionRegistration {
  /** "<handler>.<extensionConfigName>" */
  name: string;
  extensionConfigName: string;
  gvh: GroupVersionHook;
  timeoutSeconds: number;
  failurePolicy: FailurePolicy;
  clientConfig: ClientConfig;
  namespaceSelector?: LabelSelector;
  settings?: Record<string, string>;
  extensionConfigResourceVersion?: string;
}

export class RegistryNotReadyError extends Error {
  constructor(op: string) {
    super(`invalid operation: ${op} cannot be called on a registry which has not been warmed up`);
    this.name = 'RegistryNotReadyError';
  }
}

/** Handler name as the extension knows it: "<handler>.<extensionConfigName>" -> "<handler>". */
export function handlerNameWithoutConfig(
  registration: Pick<ExtensionRegistration, 'name' | 'extensionConfigName'>,
): string {
  const suffix = `.${registration.extensionConfigName}`;
  return registration.name.endsWith(suffix) ? registration.name.slice(0, -suffix.length) : registration.name;
}

/** Builds the registrations of an ExtensionConfig from its status.handlers. Throws on bad handler entries. */
export function registrationsFor(ec: ExtensionConfig): ExtensionRegistration[] {
  const ecName = ec.metadata.name;
  if (!ecName) throw new Error('ExtensionConfig has no metadata.name');
  // Reject an invalid namespaceSelector at registration time instead of at every call.
  if (ec.spec.namespaceSelector) labelSelectorAsSelector(ec.spec.namespaceSelector);
  return (ec.status?.handlers ?? []).map((h) => {
    const { group, version } = parseGroupVersion(h.requestHook.apiVersion);
    return {
      name: h.name,
      extensionConfigName: ecName,
      gvh: { group, version, hook: h.requestHook.hook },
      timeoutSeconds: h.timeoutSeconds ?? DEFAULT_HANDLER_TIMEOUT_SECONDS,
      failurePolicy: (h.failurePolicy ?? 'Fail') as FailurePolicy,
      clientConfig: ec.spec.clientConfig,
      namespaceSelector: ec.spec.namespaceSelector,
      settings: ec.spec.settings,
      extensionConfigResourceVersion: ec.metadata.resourceVersion,
    };
  });
}

export class ExtensionRegistry {
  private entries: ReadonlyMap<string, ExtensionRegistration> = new Map();
  private ready = false;
  /** In-process updaters (src/in-process): kept apart, so warmUp/add/remove of ExtensionConfigs leave them alone. */
  private inProcess: ReadonlyMap<string, ExtensionRegistration> = new Map();

  /** Installs the in-process updaters' registrations (replacing earlier ones); on a name clash they shadow an ExtensionConfig's. */
  setInProcess(registrations: ExtensionRegistration[]): void {
    this.inProcess = new Map(registrations.map((r) => [r.name, r]));
  }

  isReady(): boolean {
    return this.ready;
  }

  /** Replaces the whole content with the given ExtensionConfigs and marks the registry ready. */
  warmUp(extensionConfigs: ExtensionConfig[]): void {
    const next = new Map<string, ExtensionRegistration>();
    for (const ec of extensionConfigs) for (const r of registrationsFor(ec)) next.set(r.name, r);
    this.entries = next;
    this.ready = true;
  }

  /** Replaces all registrations of this ExtensionConfig with those in its status.handlers. */
  add(ec: ExtensionConfig): void {
    if (!this.ready) throw new RegistryNotReadyError('Add');
    const registrations = registrationsFor(ec);
    const next = new Map([...this.entries].filter(([, r]) => r.extensionConfigName !== ec.metadata.name));
    for (const r of registrations) next.set(r.name, r);
    this.entries = next;
  }

  /** Removes every registration of the named ExtensionConfig. */
  remove(extensionConfigName: string): void {
    if (!this.ready) throw new RegistryNotReadyError('Remove');
    this.entries = new Map([...this.entries].filter(([, r]) => r.extensionConfigName !== extensionConfigName));
  }

  get(name: string): ExtensionRegistration | undefined {
    if (!this.ready) throw new RegistryNotReadyError('Get');
    return this.inProcess.get(name) ?? this.entries.get(name);
  }

  /** Registrations for a hook (group+hook matched like upstream List), sorted by name for a stable call order. */
  list(gvh?: Pick<GroupVersionHook, 'group' | 'hook'>): ExtensionRegistration[] {
    if (!this.ready) throw new RegistryNotReadyError('List');
    return [...new Map([...this.entries, ...this.inProcess]).values()]
      .filter((r) => !gvh || (r.gvh.group === gvh.group && r.gvh.hook === gvh.hook))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
