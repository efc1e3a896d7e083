// NestJS wrapper: starts an extension server as a provider and closes it with the application.
import { Inject, Module, type DynamicModule, type OnModuleDestroy } from '@nestjs/common';
import { createExtensionServer, type ExtensionServer, type ExtensionServerOptions } from './extension-server';

export const EXTENSION_SERVER = Symbol('EXTENSION_SERVER');

class ExtensionServerLifecycle implements OnModuleDestroy {
  constructor(@Inject(EXTENSION_SERVER) private readonly server: ExtensionServer) {}
  onModuleDestroy(): Promise<void> {
    return this.server.close();
  }
}

@Module({})
export class ExtensionServerModule {
  static forRoot(opts: ExtensionServerOptions): DynamicModule {
    return {
      module: ExtensionServerModule,
      providers: [
        { provide: EXTENSION_SERVER, useFactory: () => createExtensionServer(opts) },
        ExtensionServerLifecycle,
      ],
      exports: [EXTENSION_SERVER],
    };
  }
}
