import { Global, Module, type DynamicModule } from '@nestjs/common';
import { FeatureGates } from './feature-gates';

/** Injection token for the process's FeatureGates (inject with `@Inject(FEATURE_GATES)`). */
export const FEATURE_GATES = Symbol.for('capi.FeatureGates');

/** Provides FEATURE_GATES (and the FeatureGates class token) globally so every controller module can inject it. */
@Global()
@Module({})
export class FeatureGatesModule {
  static forRoot(gates: FeatureGates = FeatureGates.defaults()): DynamicModule {
    return {
      module: FeatureGatesModule,
      global: true,
      providers: [
        { provide: FEATURE_GATES, useValue: gates },
        { provide: FeatureGates, useExisting: FEATURE_GATES },
      ],
      exports: [FEATURE_GATES, FeatureGates],
    };
  }
}
