import { Injectable } from '@nestjs/common';
import { listen, pathOf, reply, type Endpoint, type EndpointFlag } from '../metrics/http-endpoint';

export const HEALTH_ENDPOINT: EndpointFlag = { what: 'health probes', flag: '--health-addr' };

/** A named check: resolves (or returns true) when healthy; throws or returns false/a reason string when not. */
export type Check = () => boolean | string | void | Promise<boolean | string | void>;

/**
 * Token of the readiness check registry. Modules inject it and add checks in onModuleInit, e.g.
 * `checks.add('informers-synced', () => cache.synced)`. /readyz fails until every check passes.
 */
export const READINESS_CHECKS = Symbol.for('capi.ReadinessChecks');
/** Token of the liveness check registry served at /healthz and /livez (a "ping" check is always present). */
export const HEALTH_CHECKS = Symbol.for('capi.HealthChecks');

export interface CheckResult {
  name: string;
  ok: boolean;
  reason?: string;
}

@Injectable()
export class CheckRegistry {
  private readonly checks = new Map<string, Check>();

  add(name: string, check: Check): void {
    if (this.checks.has(name)) throw new Error(`check ${name} is already registered`);
    this.checks.set(name, check);
  }

  names(): string[] {
    return [...this.checks.keys()];
  }

  /** Runs every check; a thrown error or a false/string result is a failure with a reason. */
  async run(): Promise<CheckResult[]> {
    return Promise.all(
      [...this.checks].map(async ([name, check]): Promise<CheckResult> => {
        try {
          const r = await check();
          if (r === false) return { name, ok: false, reason: 'not ready' };
          if (typeof r === 'string') return { name, ok: false, reason: r };
          return { name, ok: true };
        } catch (e) {
          return { name, ok: false, reason: (e as Error)?.message ?? String(e) };
        }
      }),
    );
  }
}

/** Renders results like the Kubernetes healthz handler: "[+]name ok" lines, then a summary. */
export function renderChecks(
  endpoint: string,
  results: CheckResult[],
  verbose: boolean,
): { status: number; body: string } {
  const failed = results.filter((r) => !r.ok);
  const status = failed.length === 0 ? 200 : 500;
  if (!verbose && status === 200) return { status, body: 'ok' };
  const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.reason}`));
  lines.push(status === 200 ? `${endpoint} check passed` : `${endpoint} check failed`);
  return { status, body: lines.join('\n') + '\n' };
}

/**
 * Serves /healthz (liveness) and /readyz (readiness), as controller-runtime's manager (pkg/manager/internal.go:
 * defaultLivenessEndpoint "/healthz", defaultReadinessEndpoint "/readyz"), and /livez. controller-runtime serves no
 * /livez; it is kube-apiserver's liveness path, served here as an alias of /healthz (same checks) for probes and
 * dashboards written against it. `?verbose` lists every check.
 */
export function serveHealth(bindAddress: string, health: CheckRegistry, readiness: CheckRegistry): Promise<Endpoint> {
  const registries: Record<string, CheckRegistry> = { '/healthz': health, '/livez': health, '/readyz': readiness };
  return listen(
    bindAddress,
    (req, res) => {
      const { path, query } = pathOf(req);
      const registry = Object.hasOwn(registries, path) ? registries[path] : undefined;
      if (!registry) return reply(res, 404, 'not found\n');
      void registry.run().then((results) => {
        const { status, body } = renderChecks(
          path.slice(1),
          [{ name: 'ping', ok: true }, ...results],
          query.has('verbose'),
        );
        reply(res, status, body);
      });
    },
    HEALTH_ENDPOINT,
  );
}
