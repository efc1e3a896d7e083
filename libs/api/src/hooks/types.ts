// JSON shapes of the hook requests/responses, field names as the Go JSON tags.
import type { FailurePolicy, HookName, PatchType, ResponseStatus } from './constants';

/** An object as sent to an extension: reduced to apiVersion, kind, selected metadata and spec. */
export interface HookObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface CommonRequest {
  apiVersion: string;
  kind: string;
  /** Omitted when empty. */
  settings?: Record<string, string>;
}

export interface CommonResponse {
  apiVersion: string;
  kind: string;
  status: ResponseStatus;
  message?: string;
}

export interface CommonRetryResponse extends CommonResponse {
  /** int32, always serialized. */
  retryAfterSeconds: number;
}

/** `patch` holds the patch bytes base64-encoded, as Go marshals []byte. */
export interface Patch {
  patchType?: PatchType;
  patch?: string;
}

export interface GroupVersionHookRef {
  apiVersion: string;
  hook: string;
}

export interface ExtensionHandler {
  name: string;
  requestHook: GroupVersionHookRef;
  timeoutSeconds?: number;
  failurePolicy?: FailurePolicy;
}

export interface DiscoveryRequest extends CommonRequest {
  kind: 'DiscoveryRequest';
}

export interface DiscoveryResponse extends CommonResponse {
  kind: 'DiscoveryResponse';
  handlers: ExtensionHandler[];
}

export interface CanUpdateMachineObjects {
  machine: HookObject;
  infrastructureMachine: HookObject;
  bootstrapConfig?: HookObject;
}

export interface CanUpdateMachineRequest extends CommonRequest {
  kind: 'CanUpdateMachineRequest';
  current: CanUpdateMachineObjects;
  desired: CanUpdateMachineObjects;
}

export interface CanUpdateMachineResponse extends CommonResponse {
  kind: 'CanUpdateMachineResponse';
  machinePatch?: Patch;
  infrastructureMachinePatch?: Patch;
  bootstrapConfigPatch?: Patch;
}

export interface CanUpdateMachineSetObjects {
  machineSet: HookObject;
  infrastructureMachineTemplate: HookObject;
  bootstrapConfigTemplate?: HookObject;
}

export interface CanUpdateMachineSetRequest extends CommonRequest {
  kind: 'CanUpdateMachineSetRequest';
  current: CanUpdateMachineSetObjects;
  desired: CanUpdateMachineSetObjects;
}

export interface CanUpdateMachineSetResponse extends CommonResponse {
  kind: 'CanUpdateMachineSetResponse';
  machineSetPatch?: Patch;
  infrastructureMachineTemplatePatch?: Patch;
  bootstrapConfigTemplatePatch?: Patch;
}

export interface UpdateMachineRequest extends CommonRequest {
  kind: 'UpdateMachineRequest';
  desired: CanUpdateMachineObjects;
}

export interface UpdateMachineResponse extends CommonRetryResponse {
  kind: 'UpdateMachineResponse';
}

/** Request/response type per hook, so callers get typed results. */
export interface HookTypes {
  Discovery: { request: DiscoveryRequest; response: DiscoveryResponse };
  CanUpdateMachine: { request: CanUpdateMachineRequest; response: CanUpdateMachineResponse };
  CanUpdateMachineSet: { request: CanUpdateMachineSetRequest; response: CanUpdateMachineSetResponse };
  UpdateMachine: { request: UpdateMachineRequest; response: UpdateMachineResponse };
}
export type HookRequest<H extends HookName> = HookTypes[H]['request'];
export type HookResponse<H extends HookName> = HookTypes[H]['response'];
