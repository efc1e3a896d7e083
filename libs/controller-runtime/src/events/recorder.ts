// Minimal core/v1 Event recorder (upstream record.EventRecorder): events are best effort, failures are logged only.
import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Client, KubeObject } from '../client/types';

export interface EventRecorder {
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
}

export class ApiEventRecorder implements EventRecorder {
  private readonly log = new Logger('EventRecorder');

  constructor(
    private readonly client: Client,
    private readonly component: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const { name, namespace, uid, resourceVersion } = obj.metadata;
    const time = this.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
    try {
      await this.client.create({
        apiVersion: 'v1',
        kind: 'Event',
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
      });
    } catch (e) {
      this.log.warn(`could not record event ${reason} on ${obj.kind} ${namespace}/${name}: ${(e as Error).message}`);
    }
  }
}
