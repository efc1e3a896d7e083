import type { DynamicModule } from '@nestjs/common';
import { ScheduleModule, type SchedulerRegistry } from '@nestjs/schedule';

/**
 * ScheduleModule.forRoot(), made once: the module is global, and Nest 11 tells dynamic modules apart by reference, so
 * a second forRoot() would add a second SchedulerRegistry and split the application's periodic jobs between the two.
 * Every module that schedules jobs imports this one (ControllerRuntimeModule for the cache resync, the manager's core
 * module for the embedded API server's Event TTL).
 */
export const SCHEDULE_MODULE: DynamicModule = ScheduleModule.forRoot();

/** Node timers wait at most 2^31-1 ms (~24.8 days); a longer interval would fire at once, so it is capped there. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs `run` every `intervalMs` as the interval job `name` of the SchedulerRegistry: listed with the application's
 * other jobs, not keeping the process alive, and cleared by ScheduleModule before application shutdown.
 */
export function addIntervalJob(scheduler: SchedulerRegistry, name: string, intervalMs: number, run: () => void): void {
  const timer = setInterval(run, Math.min(MAX_TIMER_MS, intervalMs));
  timer.unref();
  scheduler.addInterval(name, timer);
}
