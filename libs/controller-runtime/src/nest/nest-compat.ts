// Start-up check that the application and the @capi packages share one NestJS of the supported major: with a second
// copy (a mismatched peer dependency installed next to the app's), DI tokens such as DiscoveryService are different
// classes and modules fail in confusing ways much later; say so up front instead.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** The @nestjs/* major the packages are built and tested with (their peerDependencies: ^11.0.0). */
export const SUPPORTED_NEST_MAJOR = 11;
const PACKAGES = ['@nestjs/common', '@nestjs/core'] as const;

export interface NestCopy {
  pkg: (typeof PACKAGES)[number];
  version: string;
  /** Directory of the package's package.json. */
  path: string;
  /** Who resolves this copy ("@capi packages", "the application"). */
  usedBy: string;
}

/** The problems with the given copies (pure): a wrong major, or the application and the packages on different copies. */
export function nestCompatibilityProblems(copies: readonly NestCopy[], major = SUPPORTED_NEST_MAJOR): string[] {
  const problems: string[] = [];
  for (const c of copies) {
    if (Number(c.version.split('.')[0]) !== major) {
      problems.push(
        `${c.usedBy}: ${c.pkg} ${c.version} (${c.path}), but the @capi packages need ${c.pkg} ${major}.x (peer dependency ^${major}.0.0)`,
      );
    }
  }
  for (const pkg of PACKAGES) {
    const paths = [...new Map(copies.filter((c) => c.pkg === pkg).map((c) => [c.path, c])).values()];
    if (paths.length > 1) {
      problems.push(
        `two copies of ${pkg}: ${paths.map((c) => `${c.version} at ${c.path} (${c.usedBy})`).join(' and ')}; install a single ${pkg} ${major}.x (npm dedupe)`,
      );
    }
  }
  return problems;
}

/** Finds the copies `resolvers` load; a package a resolver cannot find is skipped (npm reports missing peers). */
export function findNestCopies(resolvers: ReadonlyArray<{ usedBy: string; require: NodeJS.Require }>): NestCopy[] {
  const out: NestCopy[] = [];
  for (const r of resolvers) {
    for (const pkg of PACKAGES) {
      let file: string;
      try {
        file = r.require.resolve(`${pkg}/package.json`);
      } catch {
        continue;
      }
      out.push({
        pkg,
        version: (r.require(file) as { version: string }).version,
        path: dirname(file),
        usedBy: r.usedBy,
      });
    }
  }
  return out;
}

export class NestVersionError extends Error {
  constructor(problems: string[]) {
    super(`incompatible NestJS installation: ${problems.join('; ')}`);
    this.name = 'NestVersionError';
  }
}

/**
 * Throws NestVersionError naming the copies when the @capi packages (resolved from here) or the application (resolved
 * from `appEntry`, default the main module) load an unsupported @nestjs major, or different copies.
 */
export function assertNestCompatible(appEntry: string | undefined = require.main?.filename): void {
  const resolvers = [{ usedBy: 'the @capi packages', require }];
  if (appEntry) resolvers.push({ usedBy: 'the application', require: createRequire(appEntry) });
  const problems = nestCompatibilityProblems(findNestCopies(resolvers));
  if (problems.length) throw new NestVersionError(problems);
}
