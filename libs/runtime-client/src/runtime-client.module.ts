// NestJS wiring: registry, transport, client and reconciler under tokens so downstream providers can swap them.
import { Module, type DynamicModule, type InjectionToken, type ModuleMetadata, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { Client } from '@capi/controller-runtime';
import { RuntimeClient, type NamespaceLabelsReader } from './client';
import { ExtensionConfigReconciler, type ExtensionConfigReconcilerOptions } from './extension-config-reconciler';
import { InProcessAwareTransport } from './in-process/in-process-transport';
import type { InProcessUpdaters } from './in-process/in-process-updaters';
import { IN_PROCESS_UPDATER_TABLE, inProcessUpdaterProviders } from './in-process/registrar';
import { ExtensionRegistry } from './registry';
import { HttpsExtensionTransport, type ClientCertificate, type ExtensionTransport } from './transport';

export const RUNTIME_CLIENT = Symbol('RUNTIME_CLIENT');
export const EXTENSION_REGISTRY = Symbol('EXTENSION_REGISTRY');
export const EXTENSION_TRANSPORT = Symbol('EXTENSION_TRANSPORT');
export const NAMESPACE_LABELS_READER = Symbol('NAMESPACE_LABELS_READER');
export const EXTENSION_CONFIG_RECONCILER = Symbol('EXTENSION_CONFIG_RECONCILER');

export interface RuntimeClientModuleOptions {
  /** Token under which a `Client` (from @capi/controller-runtime) is provided. */
  kubeClientToken: InjectionToken;
  /** Modules that provide the kube client token. */
  imports?: ModuleMetadata['imports'];
  /** mTLS certificate presented to extensions. */
  clientCertificate?: ClientCertificate;
  reconciler?: ExtensionConfigReconcilerOptions;
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
      // In-process updaters (IN_PLACE_UPDATERS) are dispatched by the transport; every other URL goes over HTTPS.
      {
        provide: EXTENSION_TRANSPORT,
        inject: [IN_PROCESS_UPDATER_TABLE],
        useFactory: (inProcess: InProcessUpdaters) => new InProcessAwareTransport(new HttpsExtensionTransport(opts.clientCertificate), inProcess),
      },
      ...inProcessUpdaterProviders(EXTENSION_REGISTRY, EXTENSION_TRANSPORT),
      { provide: NAMESPACE_LABELS_READER, useFactory: namespaceLabelsFromClient, inject: [opts.kubeClientToken] },
      {
        provide: RUNTIME_CLIENT,
        useFactory: (r: ExtensionRegistry, t: ExtensionTransport, ns: NamespaceLabelsReader) => new RuntimeClient(r, t, ns),
        inject: [EXTENSION_REGISTRY, EXTENSION_TRANSPORT, NAMESPACE_LABELS_READER],
      },
      {
        provide: EXTENSION_CONFIG_RECONCILER,
        useFactory: (c: Client, r: ExtensionRegistry, t: ExtensionTransport) => new ExtensionConfigReconciler(c, r, t, opts.reconciler),
        inject: [opts.kubeClientToken, EXTENSION_REGISTRY, EXTENSION_TRANSPORT],
      },
    ];
    return {
      module: RuntimeClientModule,
      global: false,
      imports: [DiscoveryModule, ...(opts.imports ?? [])],
      providers,
      exports: [RUNTIME_CLIENT, EXTENSION_REGISTRY, EXTENSION_TRANSPORT, NAMESPACE_LABELS_READER, EXTENSION_CONFIG_RECONCILER],
    };
  }
}
