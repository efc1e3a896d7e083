// NestJS modules of the MachineSet and MachineDeployment controllers. They need ControllerRuntimeModule (global) in
// the app. RUNTIME_CLIENT (RuntimeClientModule, passed through `imports`) and FEATURE_GATES are optional: without
// them nothing is updated in place. SsaModule is imported here so the controllers share the process SSA caches.
import { Module, type DynamicModule, type ModuleMetadata, type Provider } from '@nestjs/common';
import type { PassiveClock } from '@capi/apimachinery';
import { SsaModule } from '@capi/ssa';
import {
  MACHINEDEPLOYMENT_CLOCK,
  MACHINEDEPLOYMENT_OPTIONS,
  MachineDeploymentReconciler,
} from './machinedeployment/reconciler';
import { MACHINESET_CLOCK, MachineSetReconciler } from './machineset/reconciler';

export interface MachineSetControllersOptions {
  /** Modules providing RUNTIME_CLIENT (e.g. RuntimeClientModule.forRoot) or other injected tokens. */
  imports?: ModuleMetadata['imports'];
  /** Time source for conditions, rolloutAfter and the CanUpdateMachineSet cache. */
  clock?: PassiveClock;
  /** TTL of the CanUpdateMachineSet answers (default 24 h, as upstream). */
  canUpdateCacheTtlMs?: number;
}

function commonProviders(options: MachineSetControllersOptions): Provider[] {
  return options.clock
    ? [
        { provide: MACHINESET_CLOCK, useValue: options.clock },
        { provide: MACHINEDEPLOYMENT_CLOCK, useValue: options.clock },
      ]
    : [];
}

@Module({})
export class MachineSetControllerModule {
  static forRoot(options: MachineSetControllersOptions = {}): DynamicModule {
    return {
      module: MachineSetControllerModule,
      imports: [SsaModule.forRoot(), ...(options.imports ?? [])],
      providers: [...commonProviders(options), MachineSetReconciler],
      exports: [MachineSetReconciler],
    };
  }
}

@Module({})
export class MachineDeploymentControllerModule {
  static forRoot(options: MachineSetControllersOptions = {}): DynamicModule {
    return {
      module: MachineDeploymentControllerModule,
      imports: [SsaModule.forRoot(), ...(options.imports ?? [])],
      providers: [
        ...commonProviders(options),
        { provide: MACHINEDEPLOYMENT_OPTIONS, useValue: { canUpdateCacheTtlMs: options.canUpdateCacheTtlMs } },
        MachineDeploymentReconciler,
      ],
      exports: [MachineDeploymentReconciler],
    };
  }
}

/** Both controllers in one module: what the manager's controller registry loads as `machineset`. */
@Module({})
export class MachineSetModule {
  static forRoot(options: MachineSetControllersOptions = {}): DynamicModule {
    return {
      module: MachineSetModule,
      imports: [MachineSetControllerModule.forRoot(options), MachineDeploymentControllerModule.forRoot(options)],
    };
  }
}
