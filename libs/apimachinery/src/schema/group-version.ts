// API group and version of an apiVersion string (k8s.io/apimachinery/pkg/runtime/schema/group_version.go).

export interface GroupVersion {
  /** "" for the core group. */
  group: string;
  version: string;
}

/**
 * Splits "group/version" at its first '/' ("v1": the core group). Never throws, for apiVersions read from objects the
 * API server accepted; use parseGroupVersion to validate one.
 */
export function parseApiVersion(apiVersion: string): GroupVersion {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** schema.ParseGroupVersion: "" and "/" are the empty GroupVersion; more than one '/' throws. */
export function parseGroupVersion(gv: string): GroupVersion {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  if (gv.indexOf('/') !== gv.lastIndexOf('/')) throw new Error(`unexpected GroupVersion string: ${gv}`);
  return parseApiVersion(gv);
}

/** The API group of an apiVersion ("" for the core group). */
export const groupOf = (apiVersion: string): string => parseApiVersion(apiVersion).group;
