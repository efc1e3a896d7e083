import { canonicalJson } from '@capi/ssa';

/**
 * Same JSON content (key order ignored). Used instead of util.isDeepStrictEqual, which also compares prototypes and
 * so calls objects from different realms (cache copies made by structuredClone under jest) different.
 */
export const sameJson = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);
