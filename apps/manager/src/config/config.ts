import 'reflect-metadata';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateBy, validateSync, type ValidationOptions } from 'class-validator';
import { FeatureGateError, FeatureGates, featureGatesFromEnv } from '@capi/controller-runtime';
import { ConfigError, FLAGS, parseDuration, parseFlags, type RawFlags } from './flags';

/** Controllers the manager knows how to run; `--controllers` picks a subset. */
export const CONTROLLER_NAMES = ['kcp', 'machineset', 'machine', 'mhc', 'extensionconfig'] as const;
export type ControllerName = (typeof CONTROLLER_NAMES)[number];

/** Where the embedded default keeps its data, relative to the working directory (gitignored). */
export const DEFAULT_DATA_DIR = '.capi';

/** Gates the embedded default turns on (it exists to show in-place updates); env seeds and --feature-gates win. */
export const EMBEDDED_FEATURE_GATES: Readonly<Record<string, boolean>> = { RuntimeSDK: true, InPlaceUpdates: true };

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const BIND_ADDRESS = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]*):(\d{1,5})$/;

/** True for "host:port", ":port", "[::1]:port" (port ≤ 65535) or "0" (disabled). */
export function isBindAddress(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  if (v === '0') return true;
  const m = BIND_ADDRESS.exec(v);
  return !!m && Number(m[1]) <= 65535;
}

function IsBindAddress(opts?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isBindAddress', validator: { validate: isBindAddress, defaultMessage: () => 'must be host:port, :port or 0 to disable' } }, opts);
}

function IsDuration(opts?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isDuration', validator: { validate: (v) => typeof v === 'string' && parseDuration(v) !== undefined, defaultMessage: () => 'must be a duration such as 15s, 1m30s or 250ms' } }, opts);
}

/** The flag values after splitting lists; validated with class-validator before use. */
export class ManagerFlagsDto {
  @IsOptional() @IsString() kubeconfig?: string;
  @IsString() dataDir = DEFAULT_DATA_DIR;
  @IsBoolean() embeddedProvider = true;
  @IsString() namespace = '';
  @IsString() featureGates = '';
  @IsIn(CONTROLLER_NAMES, { each: true, message: `each value must be one of: ${CONTROLLER_NAMES.join(', ')}` })
  controllers: string[] = [...CONTROLLER_NAMES];
  @IsBoolean() leaderElect = false;
  @IsDuration() leaderElectLeaseDuration = '15s';
  @IsDuration() leaderElectRenewDeadline = '10s';
  @IsDuration() leaderElectRetryPeriod = '2s';
  @IsBindAddress() metricsBindAddress = ':8080';
  @IsBindAddress() healthProbeBindAddress = ':9440';
  @IsString() runtimeExtensionClientCertFile = '';
  @IsString() runtimeExtensionClientKeyFile = '';
  @IsIn(['json', 'text'], { message: 'must be json or text' }) logFormat = 'json';
  @IsOptional() @IsIn(LOG_LEVELS, { message: `must be one of: ${LOG_LEVELS.join(', ')}` }) logLevel?: string;
  @IsInt() @Min(0) @Max(10, { message: 'must be an integer between 0 and 10' }) v = 0;
}

export interface LeaderElectionConfig {
  enabled: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** The validated configuration the manager is built from. */
export interface ManagerConfig {
  kubeconfig?: string;
  /** Embedded default: data directory (SQLite, token/CA, kubeconfig); undefined = in-memory storage, nothing written. */
  dataDir?: string;
  /** Embedded default: run the in-memory provider and the reference updater. */
  embeddedProvider: boolean;
  namespace?: string;
  featureGates: FeatureGates;
  controllers: ControllerName[];
  /** True when --controllers was not given (gated controllers are then skipped instead of rejected). */
  controllersDefaulted: boolean;
  leaderElection: LeaderElectionConfig;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  logFormat: 'json' | 'text';
  logLevel: LogLevel;
  /** mTLS towards runtime extensions: both files or neither. */
  runtimeExtensionClientCertificate?: { certFile: string; keyFile: string };
}

export type LoadResult = { help: true } | { help: false; config: ManagerConfig };

/**
 * Parses and validates flags (and the EXP_* environment seeds for feature gates). Throws ConfigError naming the first
 * offending flag.
 */
export function loadManagerConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): LoadResult {
  const raw = parseFlags(argv);
  if (raw.help === true) return { help: true };
  const dto = toDto(raw);
  const errors = validateSync(dto, { forbidUnknownValues: true });
  if (errors.length > 0) {
    const e = errors[0];
    const flag = FLAGS.find((f) => f.key === e.property)?.name ?? e.property;
    const value = (dto as unknown as Record<string, unknown>)[e.property];
    if (e.property === 'controllers') {
      const unknown = dto.controllers.filter((c) => !(CONTROLLER_NAMES as readonly string[]).includes(c));
      throw new ConfigError('--controllers', `unknown controller ${unknown.map((c) => JSON.stringify(c)).join(', ')} (known: ${CONTROLLER_NAMES.join(', ')})`);
    }
    throw new ConfigError(`--${flag}`, `${JSON.stringify(value)} ${Object.values(e.constraints ?? {})[0] ?? 'is invalid'}`);
  }
  let featureGates: FeatureGates;
  try {
    const embeddedDefaults = dto.kubeconfig ? {} : EMBEDDED_FEATURE_GATES;
    featureGates = FeatureGates.parse(dto.featureGates, undefined, { ...embeddedDefaults, ...featureGatesFromEnv(env) });
  } catch (err) {
    if (err instanceof FeatureGateError) throw new ConfigError('--feature-gates', err.message);
    throw err;
  }
  const controllersDefaulted = raw.controllers === undefined;
  const controllers = [...new Set(dto.controllers)] as ControllerName[];
  if (!controllersDefaulted && controllers.includes('extensionconfig') && !featureGates.enabled('RuntimeSDK')) {
    throw new ConfigError('--controllers', 'extensionconfig requires --feature-gates=RuntimeSDK=true');
  }
  const certFile = dto.runtimeExtensionClientCertFile;
  const keyFile = dto.runtimeExtensionClientKeyFile;
  if (!!certFile !== !!keyFile) {
    throw new ConfigError(certFile ? '--runtime-extension-client-key-file' : '--runtime-extension-client-cert-file', 'both --runtime-extension-client-cert-file and --runtime-extension-client-key-file must be set, or neither');
  }
  return {
    help: false,
    config: {
      kubeconfig: dto.kubeconfig,
      dataDir: dto.dataDir || undefined,
      embeddedProvider: dto.embeddedProvider,
      namespace: dto.namespace || undefined,
      featureGates,
      controllers,
      controllersDefaulted,
      leaderElection: {
        enabled: dto.leaderElect,
        leaseDurationMs: parseDuration(dto.leaderElectLeaseDuration)!,
        renewDeadlineMs: parseDuration(dto.leaderElectRenewDeadline)!,
        retryPeriodMs: parseDuration(dto.leaderElectRetryPeriod)!,
      },
      metricsBindAddress: dto.metricsBindAddress,
      healthProbeBindAddress: dto.healthProbeBindAddress,
      logFormat: dto.logFormat as 'json' | 'text',
      logLevel: (dto.logLevel as LogLevel | undefined) ?? levelFromVerbosity(dto.v),
      ...(certFile ? { runtimeExtensionClientCertificate: { certFile, keyFile } } : {}),
    },
  };
}

/** klog verbosity → log level: 0 info, 1-4 debug, 5+ trace. */
export function levelFromVerbosity(v: number): LogLevel {
  if (v >= 5) return 'trace';
  if (v >= 1) return 'debug';
  return 'info';
}

function toDto(raw: RawFlags): ManagerFlagsDto {
  const dto = new ManagerFlagsDto();
  const target = dto as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'help') continue;
    if (key === 'controllers') target[key] = String(value).split(',').map((s) => s.trim()).filter(Boolean);
    else if (key === 'v') {
      if (!/^\d+$/.test(String(value))) throw new ConfigError('--v', `${JSON.stringify(value)} must be an integer between 0 and 10`);
      target[key] = Number(value);
    }
    else target[key] = value;
  }
  return dto;
}
