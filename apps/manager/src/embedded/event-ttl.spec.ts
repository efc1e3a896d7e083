import 'reflect-metadata';
import { SchedulerRegistry } from '@nestjs/schedule';
import { renderKubeconfig } from '@capi/apiserver';
import { JsonLogger } from '../logging/logger';
import type { EmbeddedEnvironment } from './embedded';
import { EmbeddedEventTtl, EVENT_TTL_JOB } from './event-ttl';

const kubeconfig = renderKubeconfig({ url: 'https://127.0.0.1:1', token: 'fake', name: 'fake' });

class FakeEmbedded implements EmbeddedEnvironment {
  sweeps = 0;
  expired = 0;
  async start() {
    return { kubeconfig };
  }
  async stop() {}
  expireEvents() {
    this.sweeps++;
    return this.expired;
  }
}

function logged() {
  const lines: Record<string, unknown>[] = [];
  const log = JsonLogger.create({ level: 'debug', destination: { write: (l: string) => lines.push(JSON.parse(l)) } });
  return { log, lines };
}

describe('EmbeddedEventTtl', () => {
  let scheduler: SchedulerRegistry;
  beforeEach(() => (scheduler = new SchedulerRegistry()));
  afterEach(() => scheduler.getIntervals().forEach((n) => scheduler.deleteInterval(n)));

  it('registers the sweep as an interval job when Events have a TTL', () => {
    new EmbeddedEventTtl(new FakeEmbedded(), scheduler, logged().log, 3_600_000).onApplicationBootstrap();
    expect(scheduler.getIntervals()).toEqual([EVENT_TTL_JOB]);
  });

  it('registers nothing with a TTL of 0 (Events kept) or an environment that cannot expire Events', () => {
    new EmbeddedEventTtl(new FakeEmbedded(), scheduler, logged().log, 0).onApplicationBootstrap();
    const noExpiry: EmbeddedEnvironment = { start: async () => ({ kubeconfig }), stop: async () => {} };
    new EmbeddedEventTtl(noExpiry, scheduler, logged().log, 3_600_000).onApplicationBootstrap();
    expect(scheduler.getIntervals()).toEqual([]);
  });

  it('a sweep deletes through the environment and logs how many; a failure is logged, not thrown', () => {
    const env = new FakeEmbedded();
    const { log, lines } = logged();
    const job = new EmbeddedEventTtl(env, scheduler, log, 3_600_000);
    expect(job.sweep()).toBe(0);
    env.expired = 3;
    expect(job.sweep()).toBe(3);
    expect(env.sweeps).toBe(2);
    expect(lines).toEqual([expect.objectContaining({ msg: 'expired Events deleted', count: 3, level: 'debug' })]);
    env.expireEvents = () => {
      throw new Error('database is closed');
    };
    expect(job.sweep()).toBe(0);
    expect(lines[1]).toMatchObject({ level: 'error', msg: 'deleting expired Events failed' });
  });
});
