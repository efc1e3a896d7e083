// Finds the app's in-process updaters at start-up (every provider of IN_PLACE_UPDATERS or an inPlaceUpdater()
// token, in any module) and installs them in the registry and the transport's dispatch table.
import { Logger, type InjectionToken, type OnModuleInit, type Provider } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { ExtensionRegistry } from '../registry';
import type { ExtensionTransport } from '../transport';
import { InProcessAwareTransport } from './in-process-transport';
import { isInPlaceUpdaterToken, type InPlaceUpdater } from './in-place-updater';
import { InProcessUpdaters, type InPlaceUpdaterSource } from './in-process-updaters';

/** Token of the app's InProcessUpdaters table (the transport dispatches through it; tests may read it). */
export const IN_PROCESS_UPDATER_TABLE = Symbol.for('capi.InProcessUpdaters');

const IN_PROCESS_UPDATER_REGISTRAR = Symbol('capi.InProcessUpdaterRegistrar');

export class InProcessUpdaterRegistrar implements OnModuleInit {
  private readonly log = new Logger('InPlaceUpdaters');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly registry: ExtensionRegistry,
    private readonly updaters: InProcessUpdaters,
    private readonly transport: ExtensionTransport,
  ) {}

  // Every provider instance exists before any onModuleInit, and controllers call hooks only after bootstrap.
  onModuleInit(): void {
    const found: InPlaceUpdaterSource[] = [];
    for (const w of this.discovery.getProviders()) {
      if (!isInPlaceUpdaterToken(w.token)) continue;
      if (!w.isDependencyTreeStatic()) throw new Error(`in-place updater ${w.name} must not be request-scoped`);
      const cls =
        w.metatype && 'name' in w.metatype && w.metatype.name
          ? w.metatype.name
          : (w.instance as { constructor?: { name?: string } })?.constructor?.name;
      found.push({
        updater: w.instance as InPlaceUpdater,
        source: `${cls || 'provider'} in ${w.host?.name ?? 'an unknown module'}`,
      });
    }
    this.updaters.set(found);
    if (found.length && !(this.transport instanceof InProcessAwareTransport)) {
      // Calls would go to https://<name>.in-process.invalid and fail with a DNS error much later.
      throw new Error(
        `EXTENSION_TRANSPORT (${this.transport?.constructor?.name ?? typeof this.transport}) does not dispatch the in-process updaters ${this.updaters.names().join(', ')}: ` +
          'wrap the replacement, new InProcessAwareTransport(yourTransport, app.get(IN_PROCESS_UPDATER_TABLE))',
      );
    }
    this.registry.setInProcess(this.updaters.registrations());
    if (found.length) this.log.log(`in-process updaters: ${this.updaters.names().join(', ')}`);
  }
}

/** The providers RuntimeClientModule adds for in-process updaters (its module imports DiscoveryModule). */
export function inProcessUpdaterProviders(registryToken: InjectionToken, transportToken: InjectionToken): Provider[] {
  return [
    { provide: IN_PROCESS_UPDATER_TABLE, useFactory: () => new InProcessUpdaters() },
    {
      provide: IN_PROCESS_UPDATER_REGISTRAR,
      inject: [DiscoveryService, registryToken, IN_PROCESS_UPDATER_TABLE, transportToken],
      useFactory: (d: DiscoveryService, r: ExtensionRegistry, u: InProcessUpdaters, t: ExtensionTransport) =>
        new InProcessUpdaterRegistrar(d, r, u, t),
    },
  ];
}
