import type { DynamicModule, Type } from '@nestjs/common';
import * as kcpLib from '@capi/kcp';
import * as machineLib from '@capi/machine';
import * as machinesetLib from '@capi/machineset';
import * as mhcLib from '@capi/mhc';
import * as runtimeClientLib from '@capi/runtime-client';
import type { ControllerName, ManagerConfig } from '../config/config';

/** How to obtain one controller's Nest module, and which feature gate (if any) it needs. */
export interface ControllerEntry {
  /** Builds the module (some read the manager config); throws ControllerUnavailableError when its lib has no module yet. */
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

/**
 * Resolves `exportName` (the first of several accepted names that exists) from a lib's public API: a Nest module
 * class, used via its static forRoot() when it has one. Missing export → ControllerUnavailableError naming lib and
 * export, so a not-yet-written lib fails loudly.
 */
export function libModule(
  controller: string,
  libName: string,
  lib: object,
  exportName: string | readonly string[],
): () => DynamicModule | Type<unknown> {
  const names = typeof exportName === 'string' ? [exportName] : exportName;
  return () => {
    const exports = lib as Record<string, unknown>;
    const m = names.map((n) => exports[n]).find((v) => typeof v === 'function');
    if (typeof m !== 'function')
      throw new ControllerUnavailableError(controller, `${libName} does not export ${names.join(' or ')} yet`);
    const forRoot = (m as { forRoot?: () => DynamicModule }).forRoot;
    return typeof forRoot === 'function' ? forRoot.call(m) : (m as Type<unknown>);
  };
}

/** The default controller → lib module mapping. */
export const DEFAULT_CONTROLLERS: ControllerRegistry = {
  kcp: {
    module: libModule('kcp', '@capi/kcp', kcpLib, [
      'KubeadmControlPlaneModule',
      'KubeadmControlPlaneControllerModule',
      'KcpControllerModule',
      'KcpModule',
    ]),
    inPlace: true,
  },
  // MachineSet and MachineDeployment controllers live in one lib and one module.
  machineset: { module: libModule('machineset', '@capi/machineset', machinesetLib, 'MachineSetModule'), inPlace: true },
  machine: {
    module: libModule('machine', '@capi/machine', machineLib, ['MachineModule', 'MachineControllerModule']),
    inPlace: true,
  },
  mhc: {
    module: libModule('mhc', '@capi/mhc', mhcLib, [
      'MachineHealthCheckModule',
      'MachineHealthCheckControllerModule',
      'MhcControllerModule',
    ]),
  },
  extensionconfig: {
    module: (config) =>
      runtimeClientLib.ExtensionConfigModule.forRoot({
        clientCertificateFiles: config?.runtimeExtensionClientCertificate,
      }),
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
  return out;
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
