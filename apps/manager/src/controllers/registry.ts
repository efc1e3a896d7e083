import type { DynamicModule, Type } from '@nestjs/common';
import { ClusterControllerModule } from '@capi/cluster';
import { KcpControllerModule } from '@capi/kcp';
import { MachineControllerModule } from '@capi/machine';
import { MachineSetModule } from '@capi/machineset';
import { MachineHealthCheckControllerModule } from '@capi/mhc';
import { ExtensionConfigModule } from '@capi/runtime-client';
import type { ControllerName, ManagerConfig } from '../config/config';

/** How to obtain one controller's Nest module, and which feature gate (if any) it needs. */
export interface ControllerEntry {
  /** Builds the controller lib's module (some read the manager config). */
  module: (config?: ManagerConfig) => DynamicModule | Type<unknown>;
  /** Gate that must be enabled for this controller (upstream sets the controller up only then). */
  gate?: string;
  /** Calls Runtime SDK hooks when InPlaceUpdates is on, so it needs a runtime client then (upstream SetupWithManager). */
  inPlace?: boolean;
}

export type ControllerRegistry = Readonly<Record<ControllerName, ControllerEntry>>;

/** A controller's setup precondition does not hold (upstream: SetupWithManager fails, the manager exits 1). */
export class ControllerSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControllerSetupError';
  }
}

export class ControllerUnavailableError extends Error {
  constructor(
    readonly controller: string,
    detail: string,
  ) {
    super(`controller ${controller} is not available: ${detail}`);
    this.name = 'ControllerUnavailableError';
  }
}

/** The default controller → lib module mapping. */
export const DEFAULT_CONTROLLERS: ControllerRegistry = {
  cluster: { module: () => ClusterControllerModule.forRoot() },
  kcp: {
    module: (config) =>
      KcpControllerModule.forRoot({
        etcdDialTimeoutMs: config?.etcdDialTimeoutMs,
        etcdCallTimeoutMs: config?.etcdCallTimeoutMs,
      }),
    inPlace: true,
  },
  // MachineSet and MachineDeployment controllers live in one lib; its module loads both.
  machineset: { module: () => MachineSetModule.forRoot(), inPlace: true },
  machine: { module: () => MachineControllerModule.forRoot(), inPlace: true },
  mhc: { module: () => MachineHealthCheckControllerModule.forRoot() },
  extensionconfig: {
    module: (config) =>
      ExtensionConfigModule.forRoot({ clientCertificateFiles: config?.runtimeExtensionClientCertificate }),
    gate: 'RuntimeSDK',
  },
};

export interface ControllerSelection {
  modules: Array<DynamicModule | Type<unknown>>;
  enabled: ControllerName[];
  /** Controllers skipped because their gate is off (only when --controllers was defaulted). */
  skipped: Array<{ name: ControllerName; reason: string }>;
}

/** Picks the modules for config.controllers; gated controllers are skipped when defaulted, rejected when asked for. */
export function selectControllers(
  config: Pick<ManagerConfig, 'controllers' | 'controllersDefaulted' | 'featureGates'> & Partial<ManagerConfig>,
  registry: ControllerRegistry = DEFAULT_CONTROLLERS,
): ControllerSelection {
  const out: ControllerSelection = { modules: [], enabled: [], skipped: [] };
  for (const name of config.controllers) {
    const entry = registry[name];
    if (!entry) throw new ControllerUnavailableError(name, 'not in the controller registry');
    if (entry.gate && !config.featureGates.enabled(entry.gate)) {
      const reason = `feature gate ${entry.gate} is disabled`;
      if (!config.controllersDefaulted) throw new ControllerUnavailableError(name, reason);
      out.skipped.push({ name, reason });
      continue;
    }
    out.modules.push(entry.module(config as ManagerConfig));
    out.enabled.push(name);
  }
  assertRuntimeClientForInPlace(config, out.enabled, registry);
  assertPriorityQueueForRateLimiting(config, out.enabled);
  return out;
}

/** Upstream util/controller/builder.go Build: rate-limited reconcilers need the priority queue gate. */
export function assertPriorityQueueForRateLimiting(
  config: Pick<ManagerConfig, 'featureGates'>,
  enabled: readonly ControllerName[],
): void {
  const gates = config.featureGates;
  if (enabled.length === 0 || !gates.enabled('ReconcilerRateLimiting') || gates.enabled('PriorityQueue')) return;
  throw new ControllerSetupError(
    `unable to create controller(s) ${enabled.join(', ')}: if feature gate ReconcilerRateLimiting is enabled, feature gate PriorityQueue must be enabled as well`,
  );
}

/**
 * Upstream's KCP, MachineDeployment, MachineSet and Machine controllers refuse to start with InPlaceUpdates on and no
 * runtime client ("RuntimeClient must not be nil when InPlaceUpdates feature gate is enabled"); the runtime client
 * exists only with RuntimeSDK. Here it comes from the extensionconfig controller (its registry is warmed up there).
 */
export function assertRuntimeClientForInPlace(
  config: Pick<ManagerConfig, 'featureGates'>,
  enabled: readonly ControllerName[],
  registry: ControllerRegistry = DEFAULT_CONTROLLERS,
): void {
  if (!config.featureGates.enabled('InPlaceUpdates')) return;
  const inPlace = enabled.filter((n) => registry[n]?.inPlace);
  if (inPlace.length === 0 || enabled.includes('extensionconfig')) return;
  const why = config.featureGates.enabled('RuntimeSDK')
    ? 'the extensionconfig controller, which provides it, is not in --controllers'
    : 'the RuntimeSDK feature gate is disabled (set --feature-gates=RuntimeSDK=true,InPlaceUpdates=true, or InPlaceUpdates=false)';
  throw new ControllerSetupError(
    `unable to create controller(s) ${inPlace.join(', ')}: RuntimeClient must not be nil when InPlaceUpdates feature gate is enabled: ${why}`,
  );
}
