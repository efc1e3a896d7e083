// NestJS wiring: registry, transport, client and reconciler under tokens so downstream providers can swap them.
import {
  Inject,
  Injectable,
  Logger,
  Module,
  Optional,
  type DynamicModule,
  type InjectionToken,
  type ModuleMetadata,
  type OnApplicationShutdown,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Registry } from 'prom-client';
import { LEADERSHIP_FENCE, METRICS_REGISTRY, type Client, type LeadershipFence } from '@capi/controller-runtime';
import { RuntimeClient, type NamespaceLabelsReader } from './client';
import { ExtensionConfigReconciler, type ExtensionConfigReconcilerOptions } from './extension-config-reconciler';
import { InProcessAwareTransport } from './in-process/in-process-transport';
import type { InProcessUpdaters } from './in-process/in-process-updaters';
import { IN_PROCESS_UPDATER_TABLE, inProcessUpdaterProviders } from './in-process/registrar';
import { RuntimeSdkMetrics } from './metrics';
import { ExtensionRegistry } from './registry';
import { ClientCertificateFiles, type ClientCertificate, type ClientCertificateSource } from './client-certificate';
import { HttpsExtensionTransport, type ExtensionTransport } from './transport';

export const RUNTIME_CLIENT = Symbol('RUNTIME_CLIENT');
export const EXTENSION_REGISTRY = Symbol('EXTENSION_REGISTRY');
export const EXTENSION_TRANSPORT = Symbol('EXTENSION_TRANSPORT');
export const NAMESPACE_LABELS_READER = Symbol('NAMESPACE_LABELS_READER');
export const EXTENSION_CONFIG_RECONCILER = Symbol('EXTENSION_CONFIG_RECONCILER');
/** RuntimeSdkMetrics on METRICS_REGISTRY (a private registry when the app provides none). */
export const RUNTIME_SDK_METRICS = Symbol('RUNTIME_SDK_METRICS');

export interface RuntimeClientModuleOptions {
  /** Token under which a `Client` (from @capi/controller-runtime) is provided. */
  kubeClientToken: InjectionToken;
  /** Modules that provide the kube client token. */
  imports?: ModuleMetadata['imports'];
  /** mTLS certificate presented to extensions. */
  clientCertificate?: ClientCertificate | ClientCertificateSource;
  /** mTLS certificate from PEM files, reloaded when they change (upstream --runtime-extension-client-cert-file/-key-file). */
  clientCertificateFiles?: { certFile: string; keyFile: string; pollIntervalMs?: number };
  reconciler?: ExtensionConfigReconcilerOptions;
}

/** Token of the client certificate source (undefined without mTLS). */
export const CLIENT_CERTIFICATE_SOURCE = Symbol('CLIENT_CERTIFICATE_SOURCE');

/** Watches the certificate files while the app runs. */
@Injectable()
export class ClientCertificateWatcher implements OnModuleInit, OnApplicationShutdown {
  constructor(@Optional() @Inject(CLIENT_CERTIFICATE_SOURCE) private readonly source?: ClientCertificateSource) {}
  onModuleInit(): void {
    if (this.source instanceof ClientCertificateFiles) this.source.start();
  }
  onApplicationShutdown(): void {
    if (this.source instanceof ClientCertificateFiles) this.source.stop();
  }
}

function clientCertificateSource(
  opts: RuntimeClientModuleOptions,
): ClientCertificate | ClientCertificateSource | undefined {
  const files = opts.clientCertificateFiles;
  if (!files) return opts.clientCertificate;
  const log = new Logger('RuntimeExtensionClientCertificate');
  return new ClientCertificateFiles(files.certFile, files.keyFile, {
    pollIntervalMs: files.pollIntervalMs,
    onReload: (version) => log.log(`reloaded client certificate ${files.certFile} (version ${version})`),
    onReloadError: (e) => log.error(`keeping the previous client certificate: ${e.message}`),
  });
}

/** Reads Namespace labels through the kube client; a missing Namespace is an error (like upstream). */
export function namespaceLabelsFromClient(client: Client): NamespaceLabelsReader {
  return async (name) => (await client.get({ apiVersion: 'v1', kind: 'Namespace', name })).metadata.labels ?? {};
}

@Module({})
export class RuntimeClientModule {
  static forRoot(opts: RuntimeClientModuleOptions): DynamicModule {
    const providers: Provider[] = [
      { provide: EXTENSION_REGISTRY, useFactory: () => new ExtensionRegistry() },
      // A bad certificate file fails start-up here (upstream: the runtime client cannot be created, the manager exits).
      { provide: CLIENT_CERTIFICATE_SOURCE, useFactory: () => clientCertificateSource(opts) },
      ClientCertificateWatcher,
      // In-process updaters (IN_PLACE_UPDATERS) are dispatched by the transport; every other URL goes over HTTPS.
      {
        provide: EXTENSION_TRANSPORT,
        useFactory: (source: ClientCertificate | ClientCertificateSource | undefined, inProcess: InProcessUpdaters) =>
          new InProcessAwareTransport(new HttpsExtensionTransport(source), inProcess),
        inject: [CLIENT_CERTIFICATE_SOURCE, IN_PROCESS_UPDATER_TABLE],
      },
      ...inProcessUpdaterProviders(EXTENSION_REGISTRY, EXTENSION_TRANSPORT),
      { provide: NAMESPACE_LABELS_READER, useFactory: namespaceLabelsFromClient, inject: [opts.kubeClientToken] },
      {
        provide: RUNTIME_SDK_METRICS,
        useFactory: (registry?: Registry) => new RuntimeSdkMetrics(registry ?? new Registry()),
        inject: [{ token: METRICS_REGISTRY, optional: true }],
      },
      {
        provide: RUNTIME_CLIENT,
        useFactory: (
          r: ExtensionRegistry,
          t: ExtensionTransport,
          ns: NamespaceLabelsReader,
          m: RuntimeSdkMetrics,
          fence?: LeadershipFence,
        ) => new RuntimeClient(r, t, ns, m, fence),
        inject: [
          EXTENSION_REGISTRY,
          EXTENSION_TRANSPORT,
          NAMESPACE_LABELS_READER,
          RUNTIME_SDK_METRICS,
          { token: LEADERSHIP_FENCE, optional: true },
        ],
      },
      {
        provide: EXTENSION_CONFIG_RECONCILER,
        useFactory: (c: Client, r: ExtensionRegistry, t: ExtensionTransport, m: RuntimeSdkMetrics) =>
          new ExtensionConfigReconciler(c, r, t, { metrics: m, ...opts.reconciler }),
        inject: [opts.kubeClientToken, EXTENSION_REGISTRY, EXTENSION_TRANSPORT, RUNTIME_SDK_METRICS],
      },
    ];
    return {
      module: RuntimeClientModule,
      global: false,
      imports: [DiscoveryModule, ...(opts.imports ?? [])],
      providers,
      exports: [
        RUNTIME_CLIENT,
        EXTENSION_REGISTRY,
        EXTENSION_TRANSPORT,
        NAMESPACE_LABELS_READER,
        EXTENSION_CONFIG_RECONCILER,
        RUNTIME_SDK_METRICS,
      ],
    };
  }
}
