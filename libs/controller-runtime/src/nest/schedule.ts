import type { DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';

/**
 * ScheduleModule.forRoot(), made once: the module is global, and Nest 11 tells dynamic modules apart by reference, so
 * a second forRoot() would add a second SchedulerRegistry and split the application's periodic jobs between the two.
 * Every module that schedules jobs imports this one (ControllerRuntimeModule for the cache resync, the manager's core
 * module for the embedded API server's Event TTL).
 */
export const SCHEDULE_MODULE: DynamicModule = ScheduleModule.forRoot();
