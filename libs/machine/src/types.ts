import type { Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';

/** A Machine as read from the API (typed view over the JSON object). */
export type MachineObject = Machine & KubeObject;
