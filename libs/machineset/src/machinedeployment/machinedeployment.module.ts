// NestJS module of the MachineDeployment controller. Needs ControllerRuntimeModule (global) in the app; RUNTIME_CLIENT
// (via `imports`) and FEATURE_GATES are optional: without them no MachineSet is updated in place. SsaModule is
// imported so the controllers share the process SSA caches.
import { Module, type DynamicModule } from '@nestjs/common';
import { SsaModule } from '@capi/ssa';
import type { MachineSetControllersOptions } from '../options';
import { MACHINEDEPLOYMENT_CLOCK, MACHINEDEPLOYMENT_OPTIONS, MachineDeploymentReconciler } from './reconciler';

@Module({})
export class MachineDeploymentControllerModule {
  static forRoot(options: MachineSetControllersOptions = {}): DynamicModule {
    return {
      module: MachineDeploymentControllerModule,
      imports: [SsaModule.forRoot(), ...(options.imports ?? [])],
      providers: [
        ...(options.clock ? [{ provide: MACHINEDEPLOYMENT_CLOCK, useValue: options.clock }] : []),
        {
          provide: MACHINEDEPLOYMENT_OPTIONS,
          useValue: {
            canUpdateCacheTtlMs: options.canUpdateCacheTtlMs,
            inPlaceOnlyRecheckMs: options.inPlaceOnlyRecheckMs,
          },
        },
        MachineDeploymentReconciler,
      ],
      exports: [MachineDeploymentReconciler],
    };
  }
}
