// Checks shared by the Machine, MachineSet and MachineDeployment webhooks (upstream core/webhooks/admission/
// machinedeployment.go, machineset.go, machine.go, internal/util/taints/validation.go,
// api/core/v1beta2/common_types.go ObjectMeta.Validate), worded as upstream so a denial reads the same.
import { MACHINE_CONTROL_PLANE_LABEL } from '@capi/api';
import { generateNameFromTemplate, isDNS1123Subdomain, isLabelKey, isLabelValue } from '@capi/apimachinery';
import { SemVer } from 'semver';
import { type FieldError, fieldError } from '../field-errors';

/** Feature gates the core webhooks consult (upstream feature/feature.go, with its defaults). */
export interface CoreWebhookFeatureGates {
  /** Beta, default true: validates the skip-preflight-checks annotation. */
  MachineSetPreflightChecks?: boolean;
  /** Alpha, default false: while off, spec.taints must stay empty. */
  MachineTaintPropagation?: boolean;
}

export interface CoreWebhookOptions {
  featureGates?: CoreWebhookFeatureGates;
}

export const gateEnabled = (opts: CoreWebhookOptions, name: keyof CoreWebhookFeatureGates): boolean =>
  opts.featureGates?.[name] ?? name === 'MachineSetPreflightChecks';

// Upstream api/core/v1beta2 constants not (yet) exported by @capi/api.
export const AUTOSCALER_MIN_SIZE_ANNOTATION = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size';
export const AUTOSCALER_MAX_SIZE_ANNOTATION = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size';
export const SKIP_PREFLIGHT_CHECKS_ANNOTATION = 'machineset.cluster.x-k8s.io/skip-preflight-checks';
export const MACHINE_POOL_NAME_LABEL = 'cluster.x-k8s.io/pool-name';
const NODE_UNINITIALIZED_TAINT_KEY = 'node.cluster.x-k8s.io/uninitialized';
const NODE_OUTDATED_REVISION_TAINT_KEY = 'node.cluster.x-k8s.io/outdated-revision';
const PREFLIGHT_CHECKS = [
  'All',
  'KubeadmVersionSkew',
  'KubernetesVersionSkew',
  'ControlPlaneIsStable',
  'ControlPlaneVersionSkew',
] as const;

/**
 * blang/semver's strict Parse (used after strings.TrimPrefix(version, "v")): major.minor.patch without leading zeros,
 * optional prerelease and build. node-semver's strict parser agrees except that it also trims whitespace and accepts
 * one leading "v", which Parse does not.
 */
export function isStrictSemver(s: string): boolean {
  if (s === '' || s !== s.trim() || s.startsWith('v') || s.startsWith('=')) return false;
  try {
    new SemVer(s, { loose: false });
    return true;
  } catch {
    return false;
  }
}

/** The version checks of the three webhooks: "must start with v", then a strict semantic version after the "v". */
export function validateVersion(version: string | undefined, path: string): FieldError[] {
  if (!version) return [];
  const errs: FieldError[] = [];
  if (!version.startsWith('v')) errs.push(fieldError.invalid(path, version, 'must start with v'));
  if (!isStrictSemver(version.startsWith('v') ? version.slice(1) : version))
    errs.push(fieldError.invalid(path, version, 'must be a valid semantic version'));
  return errs;
}

export type IntOrString = number | string;

/** Go's strconv.Atoi error text for `s` (64-bit int). */
function atoi(s: string): { value?: number; err?: string } {
  if (!/^[+-]?\d+$/.test(s)) return { err: `strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax` };
  const n = BigInt(s);
  if (n < -(2n ** 63n) || n >= 2n ** 63n)
    return { err: `strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range` };
  return { value: Number(n) };
}

/**
 * intstr.GetScaledValueFromIntOrPercent: an int as is, "N%" scaled against total. Throws Error with upstream's text.
 * The same helper exists in libs/machineset (rollout/mdutil.ts), libs/mhc and libs/apiserver with their own error types.
 */
export function scaledValueFromIntOrPercent(v: IntOrString, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  if (!v.endsWith('%')) throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  const { value, err } = atoi(v.slice(0, -1));
  if (err !== undefined) throw new Error(`invalid value for IntOrString: invalid value ${JSON.stringify(v)}: ${err}`);
  const scaled = ((value as number) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** IntOrString.String(). */
const intOrStringText = (v: IntOrString): string => String(v);

function intOrPercentErrors(v: IntOrString | undefined, path: string): FieldError[] {
  if (v === undefined || v === null) return [];
  try {
    // total and roundUp don't matter for validation (upstream's note).
    scaledValueFromIntOrPercent(v, 0, false);
    return [];
  } catch (e) {
    return [
      fieldError.invalid(path, intOrStringText(v), `must be either an int or a percentage: ${(e as Error).message}`),
    ];
  }
}

/** validateRolloutStrategy (machinedeployment.go). */
export function validateRolloutStrategy(
  path: string,
  maxUnavailable: IntOrString | undefined,
  maxSurge: IntOrString | undefined,
): FieldError[] {
  const errs = [
    ...intOrPercentErrors(maxUnavailable, `${path}.rollingUpdate.maxUnavailable`),
    ...intOrPercentErrors(maxSurge, `${path}.rollingUpdate.maxSurge`),
  ];
  if (maxUnavailable === 0 && maxSurge === 0)
    errs.push(
      fieldError.invalid(
        `${path}.rollingUpdate`,
        intOrStringText(maxSurge),
        'maxUnavailable and maxSurge cannot both be 0',
      ),
    );
  return errs;
}

/** validateRemediationMaxInFlight (machinedeployment.go). */
export const validateRemediationMaxInFlight = (path: string, maxInFlight: IntOrString | undefined): FieldError[] =>
  intOrPercentErrors(maxInFlight, `${path}.maxInFlight`);

/** validateMDMachineNaming / validateMSMachineNaming: a template with {{ .random }} rendering to a valid name. */
export function validateMachineNaming(template: string | undefined, path: string): FieldError[] {
  if (!template) return [];
  const field = `${path}.template`;
  const errs: FieldError[] = [];
  if (!template.includes('{{ .random }}'))
    errs.push(fieldError.invalid(field, template, 'invalid template, {{ .random }} is missing'));
  let name: string;
  try {
    name = generateNameFromTemplate(template, 'cluster', { machineSet: { name: 'machineset' } });
  } catch (e) {
    errs.push(fieldError.invalid(field, template, `invalid template: ${(e as Error).message}`));
    return errs;
  }
  for (const m of isDNS1123Subdomain(name))
    errs.push(
      fieldError.invalid(
        field,
        template,
        `invalid template, generated names would not be valid Kubernetes object names: ${m}`,
      ),
    );
  return errs;
}

/** validateSkippedMachineSetPreflightChecks (machineset.go). */
export function validateSkippedPreflightChecks(annotations: Record<string, string> | undefined): FieldError[] {
  const skip = annotations?.[SKIP_PREFLIGHT_CHECKS_ANNOTATION];
  if (!skip) return [];
  const supported = new Set<string>(PREFLIGHT_CHECKS);
  const invalid = skip
    .split(',')
    .map((s) => s.trim())
    .filter((s) => !supported.has(s));
  if (!invalid.length) return [];
  return [
    fieldError.invalid(
      `metadata.annotations.${SKIP_PREFLIGHT_CHECKS_ANNOTATION}`,
      invalid,
      `skipped preflight check(s) must be among: [${[...supported].sort().join(' ')}]`,
    ),
  ];
}

export interface MachineTaintLike {
  key: string;
  value?: string;
  effect?: string;
}

/** taints.ValidateMachineTaints (internal/util/taints/validation.go). */
export function validateMachineTaints(
  taints: readonly MachineTaintLike[] | undefined,
  path: string,
  opts: CoreWebhookOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  const list = taints ?? [];
  if (!gateEnabled(opts, 'MachineTaintPropagation') && list.length > 0)
    errs.push(
      fieldError.forbidden(
        path,
        'taints are not allowed to be set when the feature gate MachineTaintPropagation is disabled',
      ),
    );
  list.forEach((taint, i) => {
    const key = `${path}[${i}].key`;
    const k = taint.key ?? '';
    // One of these at most, as upstream's switch.
    if (k === NODE_UNINITIALIZED_TAINT_KEY || k === NODE_OUTDATED_REVISION_TAINT_KEY)
      errs.push(fieldError.invalid(key, k, 'taint key is not allowed'));
    else if (k.startsWith('node.kubernetes.io/') && k !== 'node.kubernetes.io/out-of-service')
      errs.push(
        fieldError.invalid(
          key,
          k,
          'taint key must not have the prefix node.kubernetes.io/, except for node.kubernetes.io/out-of-service',
        ),
      );
    else if (k.startsWith('node.cloudprovider.kubernetes.io/'))
      errs.push(fieldError.invalid(key, k, 'taint key must not have the prefix node.cloudprovider.kubernetes.io/'));
    else if (k === 'node-role.kubernetes.io/master')
      errs.push(fieldError.invalid(key, k, 'taint is deprecated since 1.24 and should not be used anymore'));
    for (const m of isLabelKey(k)) errs.push(fieldError.invalid(key, k, m));
  });
  return errs;
}

/**
 * validateMachineTaintsForWorkers (machine.go): with MachineTaintPropagation on, workers may not carry the
 * control-plane role taint; a Machine with the control-plane label is skipped.
 */
export function validateMachineTaintsForWorkers(
  taints: readonly MachineTaintLike[] | undefined,
  machineLabels: Record<string, string> | undefined,
  path: string,
  opts: CoreWebhookOptions,
): FieldError[] {
  if (!gateEnabled(opts, 'MachineTaintPropagation')) return [];
  if (machineLabels && MACHINE_CONTROL_PLANE_LABEL in machineLabels) return [];
  const errs: FieldError[] = [];
  (taints ?? []).forEach((t, i) => {
    if (t.key === 'node-role.kubernetes.io/control-plane')
      errs.push(fieldError.invalid(`${path}[${i}].key`, t.key, 'taint is not allowed for worker Machines'));
  });
  return errs;
}

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/**
 * ObjectMeta.Validate (api/core/v1beta2/common_types.go): metav1validation.ValidateLabels and
 * apivalidation.ValidateAnnotations on a template's metadata.
 */
export function validateTemplateMetadata(
  meta: { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const labelsPath = `${path}.labels`;
  for (const [k, v] of Object.entries(meta?.labels ?? {})) {
    for (const m of isLabelKey(k)) errs.push(fieldError.invalid(labelsPath, k, m));
    for (const m of isLabelValue(v)) errs.push(fieldError.invalid(labelsPath, v, m));
  }
  const annotationsPath = `${path}.annotations`;
  let total = 0;
  for (const [k, v] of Object.entries(meta?.annotations ?? {})) {
    // The rule is QualifiedName except that case doesn't matter (upstream ValidateAnnotations).
    for (const m of isLabelKey(k.toLowerCase())) errs.push(fieldError.invalid(annotationsPath, k, m));
    total += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT)
    errs.push({
      type: 'FieldValueTooLong',
      field: annotationsPath,
      detail: `may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
    });
  return errs;
}

/** ContractVersionedObjectReference.IsDefined(): any field set. */
export const isRefDefined = (ref: { apiGroup?: string; kind?: string; name?: string } | undefined): boolean =>
  !!ref && !!(ref.apiGroup || ref.kind || ref.name);

/** A Go map's JSON (keys sorted), for bad values printed in messages. */
export const sortedMap = (m: Record<string, string> | undefined): Record<string, string> | null =>
  m ? Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : null;
