// What the embedded default runs besides the controllers: the in-memory infrastructure/bootstrap provider with the
// reference in-place updater on its host backend (registered by an ExtensionConfig).
import { Module, type DynamicModule } from '@nestjs/common';
import { InMemoryProviderModule, type InMemoryProviderOptions, type WorkloadServersMode } from '@capi/inmemory';
import { SsaModule } from '@capi/ssa';
import { UpdaterRegistration } from './updater-registration';

export interface EmbeddedProviderOptions {
  /** Simulated VM boot time (default: the provider's, 1.5 s). */
  provisioningDelayMs?: number;
  /**
   * Reference updater timings (defaults: upstream's 15 s + 0..4 s jitter, retry after 5 s); false runs no reference
   * updater (and registers no ExtensionConfig), e.g. for a provider bringing its own in-process updater.
   */
  updater?: false | { updateDurationSeconds?: number; updateJitterSeconds?: number; retryAfterSeconds?: number };
  /** Where the simulated workload clusters' API servers run (default: in this process). */
  workloadServers?: WorkloadServersMode;
  /**
   * The workload clusters' simulated Pods (kube-proxy, CoreDNS, a sample Deployment with a PodDisruptionBudget and a
   * volume), so deleting a Machine drains a real Node (default: on here; the provider's own default is off).
   */
  workloadPods?: InMemoryProviderOptions['workloadPods'];
}

@Module({})
export class EmbeddedProviderModule {
  static forRoot(options: EmbeddedProviderOptions = {}): DynamicModule {
    return {
      module: EmbeddedProviderModule,
      imports: [
        SsaModule.forRoot(),
        InMemoryProviderModule.forRoot({
          provisioningDelayMs: options.provisioningDelayMs,
          workloadServers: options.workloadServers,
          workloadPods: options.workloadPods ?? true,
          inPlaceUpdater: options.updater === false ? false : { host: '127.0.0.1', ...options.updater },
        }),
      ],
      providers: [UpdaterRegistration],
    };
  }
}
