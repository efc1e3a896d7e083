// NestJS module of the MachineSet controller. Needs ControllerRuntimeModule (global) in the app; RUNTIME_CLIENT (via
// `imports`) and FEATURE_GATES are optional: without them nothing is updated in place. SsaModule is imported so the
// controllers share the process SSA caches.
import { Module, type DynamicModule } from '@nestjs/common';
import { SsaModule } from '@capi/ssa';
import type { MachineSetControllersOptions } from '../options';
import { MACHINESET_CLOCK, MachineSetReconciler } from './reconciler';

@Module({})
export class MachineSetControllerModule {
  static forRoot(options: MachineSetControllersOptions = {}): DynamicModule {
    return {
      module: MachineSetControllerModule,
      imports: [SsaModule.forRoot(), ...(options.imports ?? [])],
      providers: [
        ...(options.clock ? [{ provide: MACHINESET_CLOCK, useValue: options.clock }] : []),
        MachineSetReconciler,
      ],
      exports: [MachineSetReconciler],
    };
  }
}
