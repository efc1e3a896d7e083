// Server-side apply + managedFields engine (structured-merge-diff / kube fieldmanager semantics). Pure functions.
//
// What is implemented (and where it follows kube rather than a simpler reading of the brief):
// - Ownership of an apply = the field set of the applied configuration (SMD ToFieldSet): leaves, list-map
//   items (with their key fields), set values, atomic lists/maps as one leaf; empty/null values and keys not
//   declared by the schema (additionalProperties, preserve-unknown-fields, no schema) are members too.
// - Ownership from a non-apply write = what it added or modified compared with live (SMD Compare), so new
//   containers are owned (FieldsV1 `".": {}`) exactly as kube records an unstructured create/update.
// - Apply entries are keyed by (manager, Apply, subresource) and carry the latest apiVersion; Update entries
//   by (manager, Update, apiVersion, subresource) — kube's BuildManagerIdentifier.
// - Applying to an object that has no managedFields gives its existing fields to `before-first-apply` (Update).
// - Update requests: managedFields omitted → live's kept; `[]` or `[{}]` → reset; any other list different
//   from live's → taken as given (malformed → MergeError). Status-subresource writes ignore them.
// - Entries are sorted as kube encodes them (Apply first, then by time, manager, apiVersion, subresource).
// - Not implemented: version conversion of managed sets, the 10-Update-managers cap, last-applied annotation.
export { applyIntent, trackUpdate, ApplyConflictError, BEFORE_FIRST_APPLY } from './apply';
export type { ApplyArgs, UpdateArgs, Conflict } from './apply';
export { FieldSet, MergeError, formatPath } from './fieldset';
export type { FieldPath, PathElement } from './fieldset';
export { toFieldSet, compare } from './walk';
export type { Comparison } from './walk';
export { rootSchema } from './types';
