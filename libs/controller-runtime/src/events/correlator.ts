// Port of client-go's EventCorrelator (tools/record/events_cache.go): before an Event reaches the API server it is
// spam-filtered per source+object (token bucket), aggregated when one reason keeps coming with different messages, and
// deduplicated: the same event again becomes a patch of count/lastTimestamp on the Event already written.

export interface CoreEvent {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  involvedObject: {
    apiVersion?: string;
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    fieldPath?: string;
  };
  reason: string;
  message: string;
  type: string;
  source: { component?: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
}

export interface CorrelatorOptions {
  /** Entries per cache (client-go maxLruCacheEntries). */
  lruSize?: number;
  /** Distinct messages of one reason within the interval before they are combined (defaultAggregateMaxEvents). */
  aggregateMaxEvents?: number;
  aggregateIntervalMs?: number;
  /** Events a source may send about one object at once, then one per 1/spamQps seconds. */
  spamBurst?: number;
  spamQps?: number;
  now?: () => Date;
}

export const EVENT_CORRELATOR_DEFAULTS = {
  lruSize: 4096,
  aggregateMaxEvents: 10,
  // client-go tools/record/events_cache.go defaultAggregateIntervalInSeconds (600).
  aggregateIntervalMs: 600_000,
  spamBurst: 25,
  spamQps: 1 / 300,
} as const;

export const AGGREGATED_MESSAGE_PREFIX = '(combined from similar events): ';

export type CorrelateResult =
  | { skip: true }
  /** `patch` set: the event was seen before and `event` (count > 1) is an update of the Event named there. */
  | { skip: false; event: CoreEvent; key: string; patch?: { count: number; lastTimestamp: string; message: string } };

/** Map in insertion order used as an LRU: get() refreshes, set() evicts the oldest beyond the bound. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

const objectKey = (e: CoreEvent) => [
  e.source.component,
  e.source.host,
  e.involvedObject.kind,
  e.involvedObject.namespace,
  e.involvedObject.name,
  e.involvedObject.uid,
  e.involvedObject.apiVersion,
];
/** client-go getEventKey: source, object (with fieldPath), type, reason, message. */
export const eventKey = (e: CoreEvent) =>
  JSON.stringify([...objectKey(e), e.involvedObject.fieldPath, e.type, e.reason, e.message]);
/** client-go getSpamKey: source and object. */
const spamKey = (e: CoreEvent) => JSON.stringify(objectKey(e));
/** client-go EventAggregatorByReasonFunc: events differing only by message aggregate together. */
const aggregateKey = (e: CoreEvent) => JSON.stringify([...objectKey(e), e.type, e.reason]);

interface TokenBucket {
  tokens: number;
  at: number;
}
interface AggregateRecord {
  messages: Set<string>;
  lastMs: number;
}
interface EventLog {
  count: number;
  firstTimestamp: string;
  name: string;
  resourceVersion?: string;
}

export class EventCorrelator {
  private readonly o: Required<Omit<CorrelatorOptions, 'now'>>;
  private readonly now: () => Date;
  private readonly spam: Lru<TokenBucket>;
  private readonly aggregates: Lru<AggregateRecord>;
  private readonly logs: Lru<EventLog>;

  constructor(options: CorrelatorOptions = {}) {
    const { now, ...rest } = options;
    this.o = { ...EVENT_CORRELATOR_DEFAULTS, ...rest };
    this.now = now ?? (() => new Date());
    this.spam = new Lru(this.o.lruSize);
    this.aggregates = new Lru(this.o.lruSize);
    this.logs = new Lru(this.o.lruSize);
  }

  /** What to write for `event`: nothing (spam), a new Event, or a patch of the one already written. */
  correlate(event: CoreEvent): CorrelateResult {
    const { event: aggregated, key } = this.aggregate(event);
    const observed = this.observe(aggregated, key);
    if (this.filtered(observed.event)) return { skip: true };
    return { skip: false, ...observed, key };
  }

  /** Remembers the Event as the server returned it (name, resourceVersion, count) under its correlation key. */
  updateState(key: string, written: CoreEvent): void {
    this.logs.set(key, {
      count: written.count,
      firstTimestamp: written.firstTimestamp,
      name: written.metadata.name,
      resourceVersion: written.metadata.resourceVersion,
    });
  }

  private aggregate(event: CoreEvent): { event: CoreEvent; key: string } {
    const nowMs = this.now().getTime();
    const aKey = aggregateKey(event);
    let record = this.aggregates.get(aKey);
    if (!record || nowMs - record.lastMs > this.o.aggregateIntervalMs) record = { messages: new Set(), lastMs: nowMs };
    record.messages.add(event.message);
    record.lastMs = nowMs;
    this.aggregates.set(aKey, record);
    if (record.messages.size < this.o.aggregateMaxEvents) return { event, key: eventKey(event) };
    // Keep the set at the bound (client-go pops any one member).
    record.messages.delete(record.messages.values().next().value as string);
    const time = formatEventTime(this.now());
    return {
      key: aKey,
      event: {
        ...event,
        metadata: {
          name: `${event.involvedObject.name}.${(BigInt(nowMs) * 1_000_000n).toString(16)}`,
          namespace: event.metadata.namespace,
        },
        message: AGGREGATED_MESSAGE_PREFIX + event.message,
        count: 1,
        firstTimestamp: time,
        lastTimestamp: time,
      },
    };
  }

  private observe(
    event: CoreEvent,
    key: string,
  ): { event: CoreEvent; patch?: { count: number; lastTimestamp: string; message: string } } {
    const last = this.logs.get(key);
    let out = event;
    let patch: { count: number; lastTimestamp: string; message: string } | undefined;
    if (last && last.count > 0) {
      out = {
        ...event,
        metadata: { ...event.metadata, name: last.name, resourceVersion: last.resourceVersion },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = { count: out.count, lastTimestamp: out.lastTimestamp, message: out.message };
    }
    this.logs.set(key, {
      count: out.count,
      firstTimestamp: out.firstTimestamp,
      name: out.metadata.name,
      resourceVersion: out.metadata.resourceVersion,
    });
    return { event: out, ...(patch ? { patch } : {}) };
  }

  /** Token bucket per source+object: true when the event must be dropped. */
  private filtered(event: CoreEvent): boolean {
    const k = spamKey(event);
    const nowMs = this.now().getTime();
    const bucket = this.spam.get(k) ?? { tokens: this.o.spamBurst, at: nowMs };
    bucket.tokens = Math.min(this.o.spamBurst, bucket.tokens + ((nowMs - bucket.at) / 1000) * this.o.spamQps);
    bucket.at = nowMs;
    const accept = bucket.tokens >= 1;
    if (accept) bucket.tokens -= 1;
    this.spam.set(k, bucket);
    return !accept;
  }
}

/** metav1.Time: RFC 3339 with second precision. */
export const formatEventTime = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
