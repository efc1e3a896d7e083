// The ExtensionConfig controller as a NestJS module: registers the reconciler with controller-runtime's Manager
// (ExtensionConfig + CA Secret watch), warms the registry up once this process leads, and exposes a readiness check.
// Global, so every controller module of the app injects the same RUNTIME_CLIENT / EXTENSION_REGISTRY.
import {
  Inject,
  Injectable,
  Logger,
  Module,
  type DynamicModule,
  type InjectionToken,
  type ModuleMetadata,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { KUBE_CLIENT, MANAGER, type Manager } from '@capi/controller-runtime';
import {
  extensionConfigControllerOptions,
  secretMetadataCache,
  type ExtensionConfigReconciler,
  type ExtensionConfigReconcilerOptions,
} from '../extension-config-reconciler';
import type { ExtensionRegistry } from '../registry';
import { EXTENSION_CONFIG_RECONCILER, EXTENSION_REGISTRY, RuntimeClientModule } from '../runtime-client.module';
import type { ClientCertificate, ClientCertificateSource } from '../client-certificate';
import { registryReadiness, runWarmUp, type WarmUpOutcome, type WarmUpPolicy } from './warm-up';

/**
 * Token of the registry readiness check: `{ name, check }` where check() returns true or a reason string.
 * The manager app adds it to its READINESS_CHECKS (libs do not import the app).
 */
export const EXTENSION_REGISTRY_READY_CHECK = Symbol.for('capi.ExtensionRegistryReadyCheck');
export const EXTENSION_CONFIG_MODULE_OPTIONS = Symbol.for('capi.ExtensionConfigModuleOptions');

export interface NamedReadinessCheck {
  name: string;
  check: () => true | string;
}

export interface ExtensionConfigModuleOptions {
  /** Token of the `Client` the reconciler reads and writes with. Default KUBE_CLIENT (direct, never stale). */
  kubeClientToken?: InjectionToken;
  /** Token of the controller-runtime Manager. Default MANAGER. */
  managerToken?: InjectionToken;
  /** Modules providing the two tokens when they are not global. */
  imports?: ModuleMetadata['imports'];
  /** mTLS certificate presented to extensions. */
  clientCertificate?: ClientCertificate | ClientCertificateSource;
  /** mTLS certificate from PEM files, reloaded when they change. */
  clientCertificateFiles?: { certFile: string; keyFile: string; pollIntervalMs?: number };
  reconciler?: ExtensionConfigReconcilerOptions;
  warmUp?: WarmUpPolicy;
  /** Export RUNTIME_CLIENT & co. to every module (default true). */
  global?: boolean;
}

const CONTROLLER_NAME = 'extensionconfig';
/** Alias of options.managerToken (default MANAGER), so the controller class can inject a configurable token. */
const MANAGER_TOKEN = Symbol('ExtensionConfigModule.Manager');

/** Registers the controller, runs the warm-up after election, keeps the outcome for the readiness check. */
@Injectable()
export class ExtensionConfigController implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('ExtensionConfig');
  private failure?: Error;
  private stopped = false;
  private pendingSleep?: { timer: NodeJS.Timeout; resolve: () => void };
  private readonly failureListeners: Array<(error: Error) => void> = [];
  /** Settles when the warm-up finished (successfully or not); undefined before election. */
  warmUpDone?: Promise<WarmUpOutcome>;

  constructor(
    @Inject(EXTENSION_CONFIG_RECONCILER) private readonly reconciler: ExtensionConfigReconciler,
    @Inject(EXTENSION_REGISTRY) private readonly registry: ExtensionRegistry,
    @Inject(EXTENSION_CONFIG_MODULE_OPTIONS) private readonly options: ExtensionConfigModuleOptions,
    @Inject(MANAGER_TOKEN) private readonly manager: Manager,
  ) {}

  onModuleInit(): void {
    // Every onModuleInit runs before ControllerRuntimeModule starts the Manager in onApplicationBootstrap.
    if (!this.manager.controllerNames().includes(CONTROLLER_NAME)) {
      const secrets = secretMetadataCache(this.manager.client, this.manager.namespace);
      this.manager.addController(this.reconciler, extensionConfigControllerOptions(this.reconciler, secrets));
    }
  }

  onApplicationBootstrap(): void {
    // Not awaited: elected() resolves only after the Manager started, which happens in another bootstrap hook.
    void this.manager.elected().then(() => {
      if (!this.stopped) this.warmUpDone = this.warmUp();
    });
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.pendingSleep) {
      clearTimeout(this.pendingSleep.timer);
      this.pendingSleep.resolve();
    }
  }

  /**
   * Called once if the warm-up gives up (a WarmUpTimeoutError naming the ExtensionConfigs not discovered, unless
   * listing failed). Upstream's manager exits then; the manager app subscribes to do the same.
   */
  onWarmUpFailure(listener: (error: Error) => void): void {
    if (this.failure) listener(this.failure);
    else this.failureListeners.push(listener);
  }

  /**
   * Warms the registry up again after a warm-up that gave up, until one succeeds or the app stops (each attempt with
   * the warm-up's budget; a failed one is logged). For an app that does not exit on the failure (the manager's
   * embedded default): hooks work again once the ExtensionConfigs are fixed.
   */
  async keepWarmingUp(): Promise<void> {
    while (this.failure && !this.stopped) {
      this.failure = undefined;
      this.warmUpDone = this.warmUp();
      await this.warmUpDone;
    }
  }

  readiness(): true | string {
    return registryReadiness({
      registry: this.registry,
      isLeader: () => this.manager.isLeader(),
      failure: () => this.failure,
    });
  }

  private async warmUp(): Promise<WarmUpOutcome> {
    const outcome = await runWarmUp((partial) => this.reconciler.warmUp({ requireAll: !partial }), {
      ...this.options.warmUp,
      now: () => Date.now(),
      cancelled: () => this.stopped,
      sleep: (ms) =>
        new Promise<void>((resolve) => {
          this.pendingSleep = { timer: setTimeout(resolve, ms), resolve };
        }),
    });
    if (outcome.ok) {
      for (const e of outcome.extensionErrors) this.log.warn(`warm-up: ${e.message} (retried by the controller)`);
      this.log.log(`registry warmed up (${this.registry.list().length} handlers)`);
    } else if (!this.stopped) {
      this.failure = outcome.error;
      this.log.error(outcome.error.message);
      for (const listener of this.failureListeners.splice(0)) listener(outcome.error);
    }
    return outcome;
  }
}

@Module({})
export class ExtensionConfigModule {
  static forRoot(options: ExtensionConfigModuleOptions = {}): DynamicModule {
    const runtimeClient = RuntimeClientModule.forRoot({
      kubeClientToken: options.kubeClientToken ?? KUBE_CLIENT,
      imports: options.imports,
      clientCertificate: options.clientCertificate,
      clientCertificateFiles: options.clientCertificateFiles,
      reconciler: options.reconciler,
    });
    return {
      module: ExtensionConfigModule,
      global: options.global ?? true,
      imports: [runtimeClient, ...(options.imports ?? [])],
      providers: [
        { provide: EXTENSION_CONFIG_MODULE_OPTIONS, useValue: options },
        { provide: MANAGER_TOKEN, useExisting: options.managerToken ?? MANAGER },
        ExtensionConfigController,
        {
          provide: EXTENSION_REGISTRY_READY_CHECK,
          inject: [ExtensionConfigController],
          useFactory: (c: ExtensionConfigController): NamedReadinessCheck => ({
            name: 'extension-registry-warmed-up',
            check: () => c.readiness(),
          }),
        },
      ],
      exports: [RuntimeClientModule, ExtensionConfigController, EXTENSION_REGISTRY_READY_CHECK],
    };
  }
}
