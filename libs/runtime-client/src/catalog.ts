// Hook catalog: hook name <-> group/version, request/response kinds, URL path (upstream: api/runtime/catalog).
import {
  HOOK_NAMES,
  HOOKS_GROUP,
  HOOKS_VERSION,
  hookRequestKind,
  hookResponseKind,
  RETRY_HOOKS,
  type HookName,
} from '@capi/api';

export interface GroupVersionHook {
  group: string;
  version: string;
  hook: string;
}

export interface HookDescriptor {
  hook: HookName;
  gvh: GroupVersionHook;
  requestKind: string;
  responseKind: string;
  /** Response embeds CommonRetryResponse. */
  retry: boolean;
}

const descriptors = new Map<HookName, HookDescriptor>(
  HOOK_NAMES.map((hook) => [
    hook,
    {
      hook,
      gvh: { group: HOOKS_GROUP, version: HOOKS_VERSION, hook },
      requestKind: hookRequestKind(hook),
      responseKind: hookResponseKind(hook),
      retry: RETRY_HOOKS.includes(hook),
    },
  ]),
);

export function hookDescriptor(hook: HookName): HookDescriptor {
  const d = descriptors.get(hook);
  if (!d) throw new Error(`hook ${hook} is not registered in the catalog`);
  return d;
}

/** True if (group, version, hook) is known. Discovery is not a registrable handler hook. */
export function isKnownHook(gvh: GroupVersionHook): boolean {
  const d = descriptors.get(gvh.hook as HookName);
  return !!d && d.hook !== 'Discovery' && d.gvh.group === gvh.group && d.gvh.version === gvh.version;
}

export const gvhString = (gvh: GroupVersionHook): string => `${gvh.group}/${gvh.version}, Hook=${gvh.hook}`;

export const sameGvh = (a: GroupVersionHook, b: GroupVersionHook): boolean =>
  a.group === b.group && a.version === b.version && a.hook === b.hook;

/** `/<group>/<version>/<hook>[/<name>]`, all lower-cased (upstream GVHToPath). */
export function gvhToPath(gvh: GroupVersionHook, name?: string): string {
  const segments = [gvh.group, gvh.version, gvh.hook, ...(name ? [name] : [])];
  return '/' + segments.map((s) => s.toLowerCase()).join('/');
}
