// What the kubeadm webhooks share: reading the opaque kubeadm configuration structs, Go's "is this struct set"
// (IsDefined), feature gates, and the validation of a template's metadata and of machine taints
// (api/core/v1beta2 ObjectMeta.Validate, internal/util/taints/validation.go ValidateMachineTaints).
import {
  validateMachineTaints as coreValidateMachineTaints,
  validateTemplateMetadata as coreValidateTemplateMetadata,
} from '../core/validation';
import type { FieldError } from '../field-errors';

/** A JSON object as the opaque kubeadm structs arrive. */
export type JsonMap = Record<string, unknown>;

export const isMap = (v: unknown): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value at `keys` below `obj`, undefined when a step is missing. */
export function dig(obj: unknown, ...keys: string[]): unknown {
  let cur = obj;
  for (const k of keys) {
    if (!isMap(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

export const digString = (obj: unknown, ...keys: string[]): string => {
  const v = dig(obj, ...keys);
  return typeof v === 'string' ? v : '';
};

export const digNumber = (obj: unknown, ...keys: string[]): number | undefined => {
  const v = dig(obj, ...keys);
  return typeof v === 'number' ? v : undefined;
};

export const digArray = (obj: unknown, ...keys: string[]): unknown[] => {
  const v = dig(obj, ...keys);
  return Array.isArray(v) ? v : [];
};

/**
 * Whether a struct is set, as the v1beta2 types' IsDefined (`!reflect.DeepEqual(x, X{})`) over its JSON: some member
 * holds a non-empty string, a number, a boolean, a non-empty list or a set object.
 */
export function isDefined(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string') return v !== '';
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.values(v).some(isDefined);
  return true;
}

/** The feature gates the kubeadm webhooks read (feature/feature.go); structurally a controller-runtime FeatureGates. */
export interface FeatureGateReader {
  enabled(name: string): boolean;
}

/** Upstream defaults of the gates these webhooks read: both alpha, off. */
const GATE_DEFAULTS: Record<string, boolean> = {
  KubeadmBootstrapFormatIgnition: false,
  MachineTaintPropagation: false,
};

export const defaultFeatureGates = (overrides: Record<string, boolean> = {}): FeatureGateReader => ({
  enabled: (name) => ({ ...GATE_DEFAULTS, ...overrides })[name] ?? false,
});

/** field.Path: `a.b[2].c`. */
export const child = (base: string, ...names: string[]): string => [base, ...names].filter((s) => s).join('.');
export const index = (base: string, i: number): string => `${base}[${i}]`;

/** clusterv1.ObjectMeta.Validate: the core webhooks' check (MachineDeployment and MachineSet templates use it too). */
export const validateTemplateMetadata = coreValidateTemplateMetadata;

/** internal/util/taints ValidateMachineTaints, with the manager's gates: the core webhooks' check. */
export const validateMachineTaints = (
  taints: readonly { key: string }[] | undefined,
  path: string,
  gates: FeatureGateReader,
): FieldError[] =>
  coreValidateMachineTaints(taints, path, {
    featureGates: { MachineTaintPropagation: gates.enabled('MachineTaintPropagation') },
  });
