// What the kubeadm webhooks share: reading the opaque kubeadm configuration structs, Go's "is this struct set"
// (IsDefined), feature gates, and the validation of a template's metadata and of machine taints
// (api/core/v1beta2 ObjectMeta.Validate, internal/util/taints/validation.go ValidateMachineTaints).
import { isLabelKey, isLabelValue } from '@capi/apimachinery';
import { fieldError, type FieldError } from '../field-errors';

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

/** The size kube-apiserver allows all annotations of an object together (apimachinery TotalAnnotationSizeLimitB). */
const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * (1 << 10);

/** clusterv1.ObjectMeta.Validate: metav1validation.ValidateLabels and apivalidation.ValidateAnnotations. */
export function validateTemplateMetadata(
  meta: { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const labelsPath = child(path, 'labels');
  for (const [k, v] of Object.entries(meta?.labels ?? {})) {
    for (const msg of isLabelKey(k)) errs.push(fieldError.invalid(labelsPath, k, msg));
    for (const msg of isLabelValue(v)) errs.push(fieldError.invalid(labelsPath, v, msg));
  }
  const annotationsPath = child(path, 'annotations');
  let size = 0;
  for (const [k, v] of Object.entries(meta?.annotations ?? {})) {
    // A qualified name, case-insensitive.
    for (const msg of isLabelKey(k.toLowerCase())) errs.push(fieldError.invalid(annotationsPath, k, msg));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_B) {
    errs.push({
      type: 'FieldValueTooLong',
      field: annotationsPath,
      detail: `may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes`,
    });
  }
  return errs;
}

/** Taint keys Cluster API itself manages (api/core/v1beta2 NodeUninitializedTaint, NodeOutdatedRevisionTaint). */
const NODE_UNINITIALIZED_TAINT_KEY = 'node.cluster.x-k8s.io/uninitialized';
const NODE_OUTDATED_REVISION_TAINT_KEY = 'node.cluster.x-k8s.io/outdated-revision';

/** internal/util/taints ValidateMachineTaints. */
export function validateMachineTaints(
  taints: readonly { key: string }[] | undefined,
  path: string,
  gates: FeatureGateReader,
): FieldError[] {
  const errs: FieldError[] = [];
  const list = taints ?? [];
  if (!gates.enabled('MachineTaintPropagation') && list.length > 0) {
    errs.push(
      fieldError.forbidden(
        path,
        'taints are not allowed to be set when the feature gate MachineTaintPropagation is disabled',
      ),
    );
  }
  list.forEach((taint, i) => {
    const keyPath = child(index(path, i), 'key');
    const key = taint.key;
    if (key === NODE_UNINITIALIZED_TAINT_KEY || key === NODE_OUTDATED_REVISION_TAINT_KEY) {
      errs.push(fieldError.invalid(keyPath, key, 'taint key is not allowed'));
    } else if (key.startsWith('node.kubernetes.io/') && key !== 'node.kubernetes.io/out-of-service') {
      errs.push(
        fieldError.invalid(
          keyPath,
          key,
          'taint key must not have the prefix node.kubernetes.io/, except for node.kubernetes.io/out-of-service',
        ),
      );
    } else if (key.startsWith('node.cloudprovider.kubernetes.io/')) {
      errs.push(
        fieldError.invalid(keyPath, key, 'taint key must not have the prefix node.cloudprovider.kubernetes.io/'),
      );
    } else if (key === 'node-role.kubernetes.io/master') {
      errs.push(fieldError.invalid(keyPath, key, 'taint is deprecated since 1.24 and should not be used anymore'));
    }
    for (const msg of isLabelKey(key)) errs.push(fieldError.invalid(keyPath, key, msg));
  });
  return errs;
}
