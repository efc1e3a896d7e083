// In-process in-place updaters: a provider's own NestJS class answering the in-place hooks, registered by DI instead
// of an HTTPS Runtime Extension + ExtensionConfig. They are composed with the ExtensionConfig-registered extensions
// by the same RuntimeClient (see in-process-updaters.ts for how).
import type { Provider, Type } from '@nestjs/common';
import type {
  CanUpdateMachineRequest,
  CanUpdateMachineResponse,
  CanUpdateMachineSetRequest,
  CanUpdateMachineSetResponse,
  FailurePolicy,
  UpdateMachineRequest,
  UpdateMachineResponse,
} from '@capi/api';

/** A hook response as an updater returns it: apiVersion and kind are filled in when omitted. */
export type InProcessResponse<R> = Omit<R, 'apiVersion' | 'kind'> & { apiVersion?: string; kind?: string };
type Answer<R> = InProcessResponse<R> | Promise<InProcessResponse<R>>;

/**
 * An updater running inside the manager process. Requests and responses are the hooks' wire types
 * (hooks.runtime.cluster.x-k8s.io/v1alpha1), JSON round-tripped like an HTTPS call, and the responses are validated
 * the same way (a malformed patch is a MalformedResponse). Implement the hooks the updater supports (at least one).
 */
export interface InPlaceUpdater {
  /** DNS-1123 label, unique among in-process updaters; handlers register as "<handler>.<name>" (e.g. "update-machine.my-updater"). */
  readonly name: string;
  /** Per call, like a discovered handler's timeoutSeconds (default 10, at most 30). A call that takes longer is a Timeout. */
  readonly timeoutSeconds?: number;
  /** What a throw or a timeout means: Fail (default) surfaces the error, Ignore counts it as an empty Success. */
  readonly failurePolicy?: FailurePolicy;
  canUpdateMachine?(request: CanUpdateMachineRequest): Answer<CanUpdateMachineResponse>;
  canUpdateMachineSet?(request: CanUpdateMachineSetRequest): Answer<CanUpdateMachineSetResponse>;
  updateMachine?(request: UpdateMachineRequest): Answer<UpdateMachineResponse>;
}

/**
 * Token of in-process updaters. NestJS has no multi-providers, so every provider of this token, in any module, is
 * one updater (found at start-up with the DiscoveryService): `{ provide: IN_PLACE_UPDATERS, useClass: MyUpdater }`.
 * Several in one module's `providers` would replace each other under one token: use `inPlaceUpdater(...)` there.
 */
export const IN_PLACE_UPDATERS = Symbol.for('capi.InPlaceUpdaters');

/** Description of the per-registration tokens made by inPlaceUpdater() (Symbol descriptions survive duplicate package copies). */
export const IN_PLACE_UPDATER_TOKEN_DESCRIPTION = 'capi.InPlaceUpdater';

/**
 * A provider registering one in-process updater under its own token, so a module can register several:
 * `providers: [inPlaceUpdater(MyUpdater), inPlaceUpdater({ useValue: other })]`.
 */
export function inPlaceUpdater(
  updater:
    | Type<InPlaceUpdater>
    | { useValue: InPlaceUpdater }
    | { useFactory: (...args: any[]) => InPlaceUpdater | Promise<InPlaceUpdater>; inject?: any[] },
): Provider {
  const provide = Symbol(IN_PLACE_UPDATER_TOKEN_DESCRIPTION);
  if (typeof updater === 'function') return { provide, useClass: updater };
  return { provide, ...updater } as Provider;
}

/** True for IN_PLACE_UPDATERS and the tokens made by inPlaceUpdater(). */
export function isInPlaceUpdaterToken(token: unknown): boolean {
  return (
    token === IN_PLACE_UPDATERS ||
    (typeof token === 'symbol' && token.description === IN_PLACE_UPDATER_TOKEN_DESCRIPTION)
  );
}
