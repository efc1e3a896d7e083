// The manager's periodic jobs run through @nestjs/schedule: the embedded API server's Event TTL (--event-ttl) and the
// cache's resync (--sync-period, scheduled by controller-runtime's module).
import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SchedulerRegistry } from '@nestjs/schedule';
import { renderKubeconfig } from '@capi/apiserver';
import { CONTROLLER_RUNTIME_OPTIONS, type ControllerRuntimeModuleOptions } from '@capi/controller-runtime';
import { loadManagerConfig } from './config/config';
import { EMBEDDED_ENVIRONMENT, type EmbeddedEnvironment } from './embedded/embedded';
import { EVENT_TTL_JOB } from './embedded/event-ttl';
import { JsonLogger, LOGGER } from './logging/logger';
import { buildManagerModule } from './manager.module';

// Loopback port 1: nothing listens; no controller runs (--controllers=), so nothing calls the API.
const kubeconfig = renderKubeconfig({ url: 'https://127.0.0.1:1', token: 'fake', name: 'fake' });
const embedded: EmbeddedEnvironment = {
  start: async () => ({ kubeconfig }),
  stop: async () => {},
  expireEvents: () => 0,
};
const quietLogger = { provide: LOGGER, useValue: JsonLogger.create({ destination: { write: () => undefined } }) };
const dir = mkdtempSync(join(tmpdir(), 'periodic-jobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(...argv: string[]): Promise<INestApplicationContext> {
  const r = loadManagerConfig([
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
    '--data-dir=',
    '--embedded-provider=false',
    '--controllers=',
    ...argv,
  ]);
  if (r.help) throw new Error('help');
  const module = buildManagerModule(r.config, {
    providers: [quietLogger, { provide: EMBEDDED_ENVIRONMENT, useValue: embedded }],
  });
  const app = await NestFactory.createApplicationContext(module, { logger: false, abortOnError: false });
  await app.init();
  return app;
}

describe('the Event TTL job', () => {
  it('runs in the embedded default, and is cleared on shutdown', async () => {
    const app = await start();
    const scheduler = app.get(SchedulerRegistry);
    expect(scheduler.getIntervals()).toContain(EVENT_TTL_JOB);
    await app.close();
    expect(scheduler.getIntervals()).not.toContain(EVENT_TTL_JOB);
  });

  it('does not run with --event-ttl=0, nor against a --kubeconfig API server (it has its own)', async () => {
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, kubeconfig);
    for (const argv of [['--event-ttl=0'], [`--kubeconfig=${path}`]]) {
      const app = await start(...argv);
      expect(app.get(SchedulerRegistry).getIntervals()).not.toContain(EVENT_TTL_JOB);
      await app.close();
    }
  });
});

describe('the cache resync', () => {
  it("gets --sync-period (upstream's 10m by default) as controller-runtime's SyncPeriod", async () => {
    for (const [argv, ms] of [
      [[], 600_000],
      [['--sync-period=15m'], 900_000],
    ] as const) {
      const app = await start(...argv);
      expect(app.get<ControllerRuntimeModuleOptions>(CONTROLLER_RUNTIME_OPTIONS).syncPeriodMs).toBe(ms);
      await app.close();
    }
  });
});
