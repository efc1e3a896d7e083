// Feature gates, modelled on k8s.io/component-base/featuregate as used by Cluster API (feature/feature.go).
// A FeatureGates instance is immutable and injected (token FEATURE_GATES); nothing reads gates from globals.

export type FeatureStage = 'Alpha' | 'Beta' | 'GA' | 'Deprecated';

export interface FeatureSpec {
  default: boolean;
  stage: FeatureStage;
  /** GA gates are locked to their default (upstream LockToDefault). */
  lockToDefault?: boolean;
  /** clusterctl/tilt variable that may seed the default (flags win). */
  env?: string;
}

/** The Cluster API gates this project knows, with upstream defaults and stages. */
export const KNOWN_FEATURE_GATES = {
  InPlaceUpdates: { default: false, stage: 'Alpha', env: 'EXP_IN_PLACE_UPDATES' },
  RuntimeSDK: { default: false, stage: 'Alpha', env: 'EXP_RUNTIME_SDK' },
  ClusterTopology: { default: false, stage: 'Alpha', env: 'CLUSTER_TOPOLOGY' },
  MachinePool: { default: true, stage: 'Beta', env: 'EXP_MACHINE_POOL' },
  MachineSetPreflightChecks: { default: true, stage: 'Beta', env: 'EXP_MACHINE_SET_PREFLIGHT_CHECKS' },
  MachineWaitForVolumeDetachConsiderVolumeAttachments: { default: true, stage: 'Beta' },
  // GA upstream. This project's work queue already has the priority queue's delayed adds (the earliest wins); it
  // orders no priorities, and the gate only keeps upstream's rule that rate limiting needs it.
  PriorityQueue: { default: true, stage: 'GA', env: 'EXP_PRIORITY_QUEUE' },
  ReconcilerRateLimiting: { default: true, stage: 'GA', env: 'EXP_RECONCILER_RATE_LIMITING' },
  KubeadmBootstrapFormatIgnition: { default: false, stage: 'Alpha', env: 'EXP_KUBEADM_BOOTSTRAP_FORMAT_IGNITION' },
  MachineTaintPropagation: { default: false, stage: 'Alpha', env: 'EXP_MACHINE_TAINT_PROPAGATION' },
  ClusterResourceSet: { default: true, stage: 'GA', lockToDefault: true, env: 'EXP_CLUSTER_RESOURCE_SET' },
} as const satisfies Record<string, FeatureSpec>;

export type KnownFeature = keyof typeof KNOWN_FEATURE_GATES;

/** Thrown for an unknown gate, a non-boolean value, malformed syntax or an attempt to change a locked gate. */
export class FeatureGateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeatureGateError';
  }
}

export class FeatureGates {
  private readonly values: ReadonlyMap<string, boolean>;

  constructor(
    overrides: Readonly<Record<string, boolean>> = {},
    readonly known: Readonly<Record<string, FeatureSpec>> = KNOWN_FEATURE_GATES,
  ) {
    const values = new Map<string, boolean>();
    for (const [name, spec] of Object.entries(known)) values.set(name, spec.default);
    for (const [name, value] of Object.entries(overrides)) {
      const spec = known[name];
      if (!spec)
        throw new FeatureGateError(
          `unrecognized feature gate: ${name} (known: ${Object.keys(known).sort().join(', ')})`,
        );
      if (spec.lockToDefault && value !== spec.default) {
        throw new FeatureGateError(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      }
      values.set(name, value);
    }
    this.values = values;
  }

  /** All gates at their defaults. */
  static defaults(known: Readonly<Record<string, FeatureSpec>> = KNOWN_FEATURE_GATES): FeatureGates {
    return new FeatureGates({}, known);
  }

  /**
   * Parses the `--feature-gates` value ("A=true,B=false"). Values are case-insensitive booleans (as Go's
   * strconv.ParseBool accepts for "true"/"false"); anything else is rejected with a message naming the gate.
   */
  static parse(
    spec: string,
    known: Readonly<Record<string, FeatureSpec>> = KNOWN_FEATURE_GATES,
    base: Readonly<Record<string, boolean>> = {},
  ): FeatureGates {
    return new FeatureGates({ ...base, ...parseFeatureGateSpec(spec, known) }, known);
  }

  /** True when the gate is on; an unknown name is a programming error and throws. */
  enabled(name: KnownFeature | string): boolean {
    const v = this.values.get(name);
    if (v === undefined) throw new FeatureGateError(`feature gate ${name} is not registered`);
    return v;
  }

  /** Returns a copy with some gates changed (tests, env seeding). */
  with(overrides: Readonly<Record<string, boolean>>): FeatureGates {
    return new FeatureGates({ ...this.explicit(), ...overrides }, this.known);
  }

  /** Every gate and its effective value, sorted by name. */
  toJSON(): Record<string, boolean> {
    return Object.fromEntries([...this.values.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** "A=true,B=false" of every gate, the same syntax parse() accepts. */
  toString(): string {
    return Object.entries(this.toJSON())
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  }

  private explicit(): Record<string, boolean> {
    const out: Record<string, boolean> = {};
    for (const [name, v] of this.values) if (v !== this.known[name]?.default) out[name] = v;
    return out;
  }
}

/** Parses "A=true,B=false" into a map, validating names against `known` and values as booleans. */
export function parseFeatureGateSpec(
  spec: string,
  known: Readonly<Record<string, FeatureSpec>> = KNOWN_FEATURE_GATES,
): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const raw of spec.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${part} (expected ${part}=true or ${part}=false)`);
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (!Object.prototype.hasOwnProperty.call(known, name)) {
      throw new FeatureGateError(`unrecognized feature gate: ${name} (known: ${Object.keys(known).sort().join(', ')})`);
    }
    const b = parseBool(value);
    if (b === undefined) throw new FeatureGateError(`invalid value of ${name}=${value}, must be true or false`);
    out[name] = b;
  }
  return out;
}

/**
 * Seeds gate values from clusterctl-style environment variables (e.g. EXP_IN_PLACE_UPDATES=true). Only gates that
 * declare an `env` name are read; a set but non-boolean variable is an error naming the variable.
 */
export function featureGatesFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  known: Readonly<Record<string, FeatureSpec>> = KNOWN_FEATURE_GATES,
): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [name, spec] of Object.entries(known)) {
    if (!spec.env) continue;
    const raw = env[spec.env];
    if (raw === undefined || raw === '') continue;
    const b = parseBool(raw.trim());
    if (b === undefined)
      throw new FeatureGateError(
        `invalid value of environment variable ${spec.env}=${raw} (feature gate ${name}), must be true or false`,
      );
    if (spec.lockToDefault && b !== spec.default) continue; // a stale clusterctl variable must not break start-up
    out[name] = b;
  }
  return out;
}

function parseBool(v: string): boolean | undefined {
  // The spellings Go's strconv.ParseBool accepts.
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}
