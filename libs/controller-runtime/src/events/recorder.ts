// core/v1 Event recorder (upstream record.EventRecorder with client-go's EventCorrelator): events are best effort,
// failures are logged only. A repeated event patches count/lastTimestamp of the Event already written instead of
// creating another object; a source's flood about one object is rate limited.
import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { isNotFound } from '../client/errors';
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '../client/types';
import { EventCorrelator, formatEventTime, type CoreEvent, type CorrelatorOptions } from './correlator';

export interface EventRecorder {
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
}

export class ApiEventRecorder implements EventRecorder {
  private readonly log = new Logger('EventRecorder');
  private readonly correlator: EventCorrelator;
  /** Writes one at a time, in order (like client-go's broadcaster), so a repeat never races its first create. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: Client,
    private readonly component: string,
    private readonly now: () => Date = () => new Date(),
    correlator: Omit<CorrelatorOptions, 'now'> = {},
  ) {
    this.correlator = new EventCorrelator({ ...correlator, now });
  }

  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const { name, namespace, uid, resourceVersion } = obj.metadata;
    const time = formatEventTime(this.now());
    const event: CoreEvent = {
      // Named like client-go does (<object>.<unique suffix>).
      metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace: namespace ?? 'default' },
      involvedObject: { apiVersion: obj.apiVersion, kind: obj.kind, name, namespace, uid, resourceVersion },
      reason,
      message,
      type,
      source: { component: this.component },
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    };
    const done = this.queue.then(() => this.write(event, obj));
    this.queue = done;
    return done;
  }

  private async write(event: CoreEvent, obj: KubeObject): Promise<void> {
    const result = this.correlator.correlate(event);
    if (result.skip) return;
    const { event: e, key, patch } = result;
    const ref = { apiVersion: 'v1', kind: 'Event', namespace: e.metadata.namespace, name: e.metadata.name };
    try {
      let written: CoreEvent | undefined;
      if (patch) {
        try {
          written = await this.client.patch<KubeObject & CoreEvent>(ref, 'merge', patch);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      // New, or the Event to update is gone (expired, deleted): write it again, without the old resourceVersion.
      written ??= await this.client.create<KubeObject & CoreEvent>({
        apiVersion: 'v1',
        kind: 'Event',
        ...e,
        metadata: { name: e.metadata.name, namespace: e.metadata.namespace },
      });
      this.correlator.updateState(key, written);
    } catch (err) {
      this.log.warn(
        `could not record event ${e.reason} on ${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name}: ${(err as Error).message}`,
      );
    }
  }
}
