// The runtime-client wiring controller test harnesses share: extensions are registered by the test, not discovered
// by an ExtensionConfig controller.
import { Module, type DynamicModule } from '@nestjs/common';
import type { Client } from '@capi/controller-runtime';
import { RuntimeClient } from '../client';
import { ExtensionRegistry } from '../registry';
import { namespaceLabelsFromClient, RUNTIME_CLIENT } from '../runtime-client.module';
import { HttpsExtensionTransport } from '../transport';

export interface TestRuntimeClient {
  /** Warmed up with no extensions; tests add() discovered ones. */
  registry: ExtensionRegistry;
  transport: HttpsExtensionTransport;
  runtimeClient: RuntimeClient;
  /** Provides `runtimeClient` as RUNTIME_CLIENT (import it into a controller module's `imports`). */
  module: DynamicModule;
}

export function createTestRuntimeClient(client: Client): TestRuntimeClient {
  const registry = new ExtensionRegistry();
  registry.warmUp([]);
  const transport = new HttpsExtensionTransport();
  const runtimeClient = new RuntimeClient(registry, transport, namespaceLabelsFromClient(client));
  @Module({})
  class TestRuntimeClientModule {}
  const module: DynamicModule = {
    module: TestRuntimeClientModule,
    providers: [{ provide: RUNTIME_CLIENT, useValue: runtimeClient }],
    exports: [RUNTIME_CLIENT],
  };
  return { registry, transport, runtimeClient, module };
}
