// Options of the MachineSet and MachineDeployment controller modules (machineset/machineset.module.ts,
// machinedeployment/machinedeployment.module.ts and the lib-level MachineSetModule in module.ts).
import type { ModuleMetadata } from '@nestjs/common';
import type { PassiveClock } from '@capi/apimachinery';

export interface MachineSetControllersOptions {
  /** Modules providing RUNTIME_CLIENT (e.g. RuntimeClientModule.forRoot) or other injected tokens. */
  imports?: ModuleMetadata['imports'];
  /** Time source for conditions, rolloutAfter and the CanUpdateMachineSet cache. */
  clock?: PassiveClock;
  /** TTL of the CanUpdateMachineSet answers (default 24 h, as upstream). */
  canUpdateCacheTtlMs?: number;
  /**
   * How often a MachineDeployment whose rollout the InPlaceOnly policy holds back asks its updaters again (default
   * 60 s): an updater can change its answer without any watched object changing.
   */
  inPlaceOnlyRecheckMs?: number;
}
