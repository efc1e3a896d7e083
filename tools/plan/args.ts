// Command-line parsing for `npm run plan` (kept pure so it can be unit tested).
import { parseArgs } from 'util';
import type { RolloutSimulationOptions } from '@capi/machineset';

export const USAGE = `usage: npm run plan -- --replicas N [--max-surge S] [--max-unavailable U] [--in-place]
                     [--strategy RollingUpdate|OnDelete] [--max-user-unavailable K]
                     [--random-seed X] [--max-iterations I] [--name "header name"]
Prints the simulated rollout (golden-log format) of one MachineDeployment from template v1 to v2.`;

export class UsageError extends Error {}

function int(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} must be an integer, got "${value}"`);
  const n = Number(value);
  if (n < min) throw new UsageError(`--${name} must be >= ${min}, got ${n}`);
  return n;
}

/** Returns undefined when help was requested. */
export function parsePlanArgs(argv: string[]): RolloutSimulationOptions | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        replicas: { type: 'string' },
        'max-surge': { type: 'string' },
        'max-unavailable': { type: 'string' },
        'in-place': { type: 'boolean' },
        strategy: { type: 'string' },
        'max-user-unavailable': { type: 'string' },
        'random-seed': { type: 'string' },
        'max-iterations': { type: 'string' },
        name: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return undefined;
  const replicas = int('replicas', values.replicas, 0);
  if (replicas === undefined) throw new UsageError('--replicas is required');
  const strategy = values.strategy ?? 'RollingUpdate';
  if (strategy !== 'RollingUpdate' && strategy !== 'OnDelete')
    throw new UsageError(`--strategy must be RollingUpdate or OnDelete, got "${strategy}"`);
  const options: RolloutSimulationOptions = {
    name: values.name,
    strategy,
    replicas,
    randomSeed: int('random-seed', values['random-seed'], Number.MIN_SAFE_INTEGER),
    maxIterations: int('max-iterations', values['max-iterations'], 1),
  };
  if (strategy === 'OnDelete') {
    if (values['max-surge'] !== undefined || values['max-unavailable'] !== undefined || values['in-place']) {
      throw new UsageError('--max-surge, --max-unavailable and --in-place only apply to RollingUpdate');
    }
    options.maxUserUnavailable = int('max-user-unavailable', values['max-user-unavailable'], 0) ?? 1;
    return options;
  }
  if (values['max-user-unavailable'] !== undefined)
    throw new UsageError('--max-user-unavailable only applies to OnDelete');
  options.maxSurge = int('max-surge', values['max-surge'], 0) ?? 1;
  options.maxUnavailable = int('max-unavailable', values['max-unavailable'], 0) ?? 0;
  if (options.maxSurge === 0 && options.maxUnavailable === 0)
    throw new UsageError('--max-surge and --max-unavailable cannot both be 0');
  options.inPlace = values['in-place'] ?? false;
  return options;
}
