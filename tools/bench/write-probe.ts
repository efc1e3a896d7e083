// A write probe for fault benches: a merge-patch of a ConfigMap sent every period whether or not the previous ones
// were answered (a write stuck on a dead etcd leader must not hide that the next ones succeed), each bounded by a
// timeout, straight over HTTPS (no client retries to hide a failure). What it measures around a fault: writes that
// failed, the slowest one, the longest time without an acknowledged write, and how long after the fault the first
// write sent after it was acknowledged.
import { Agent, request } from 'node:https';

export interface ProbeSample {
  /** ms since epoch: request sent, answer (or error) received. */
  start: number;
  end: number;
  ok: boolean;
  /** Status and the server's message, or the transport error, when not ok. */
  error?: string;
}

export interface ProbeEndpoint {
  url: string;
  token: string;
  caData?: string;
}

export interface WriteProbeOptions {
  periodMs?: number;
  timeoutMs?: number;
  namespace?: string;
  name?: string;
}

export class WriteProbe {
  readonly samples: ProbeSample[] = [];
  private running?: Promise<void>;
  private stopped = false;
  private wake?: () => void;
  private readonly agent: Agent;
  /** Answered samples are pushed in answer order; sorted by send time once stopped. */
  private readonly periodMs: number;
  private readonly timeoutMs: number;
  private readonly path: string;
  private readonly collection: string;
  private readonly name: string;

  constructor(
    private readonly ep: ProbeEndpoint,
    opts: WriteProbeOptions = {},
  ) {
    this.periodMs = opts.periodMs ?? 250;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.name = opts.name ?? 'write-probe';
    this.collection = `/api/v1/namespaces/${opts.namespace ?? 'default'}/configmaps`;
    this.path = `${this.collection}/${this.name}`;
    this.agent = new Agent({ keepAlive: true, ca: ep.caData ? Buffer.from(ep.caData, 'base64') : undefined });
  }

  /** Creates the ConfigMap (once, before the faults) and starts writing. */
  async start(): Promise<void> {
    const created = await this.send('POST', this.collection, 'application/json', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: this.name },
      data: { seq: '0' },
    });
    if (created && !/^409 /.test(created)) throw new Error(`write probe: creating ConfigMap ${this.name}: ${created}`);
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
    this.agent.destroy();
  }

  private async loop(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    for (let seq = 1; !this.stopped; seq++) {
      const start = Date.now();
      const sent = this.send('PATCH', this.path, 'application/merge-patch+json', { data: { seq: String(seq) } }).then(
        (error) => {
          this.samples.push({
            start,
            end: Date.now(),
            ok: error === undefined,
            ...(error === undefined ? {} : { error }),
          });
        },
      );
      inFlight.add(sent);
      void sent.finally(() => inFlight.delete(sent));
      const wait = start + this.periodMs - Date.now();
      if (wait > 0 && !this.stopped)
        await new Promise<void>((r) => {
          this.wake = r;
          setTimeout(r, wait);
        });
    }
    await Promise.all(inFlight); // each bounded by the timeout
    this.samples.sort((a, b) => a.start - b.start);
  }

  /** undefined on 2xx, else "<status> <message>" or the transport error. */
  private send(method: string, path: string, contentType: string, body: unknown): Promise<string | undefined> {
    return new Promise((resolve) => {
      const req = request(
        `${this.ep.url}${path}`,
        {
          method,
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: { authorization: `Bearer ${this.ep.token}`, 'content-type': contentType },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve(undefined);
            let message = text.trim();
            try {
              message = (JSON.parse(text) as { message?: string }).message ?? message;
            } catch {
              /* not a Status */
            }
            resolve(`${status} ${message.slice(0, 200)}`);
          });
          res.on('error', (e) => resolve(`response: ${e.message}`));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (e) => resolve(e.message));
      req.end(JSON.stringify(body));
    });
  }
}

export interface WindowFigures {
  writes: number;
  failed: number;
  /** The longest time without an acknowledged write: between two acknowledgements, or from the last one to the window's end. */
  longestGapMs: number;
  /** From the window's start to the first acknowledgement of a write sent in it (undefined: none succeeded). */
  recoveryMs?: number;
  slowestMs: number;
  /** Distinct error messages with their counts, most first. */
  errors: [string, number][];
}

/**
 * Figures of the writes sent in [from, to). Gaps are measured between acknowledgements (whenever the writes were sent),
 * starting from the last one before `from` (a fault that lands in a gap extends it), so a window whose writes all fail
 * shows the whole outage.
 */
export function windowFigures(samples: readonly ProbeSample[], from: number, to: number): WindowFigures {
  const inWindow = samples.filter((s) => s.start >= from && s.start < to);
  const acks = samples
    .filter((s) => s.ok)
    .map((s) => s.end)
    .sort((a, b) => a - b);
  const end = Math.min(to, Math.max(from, ...inWindow.map((s) => s.end)));
  let last = acks.filter((t) => t <= from).at(-1) ?? from;
  let longestGapMs = 0;
  for (const t of acks.filter((x) => x > from && x <= end)) {
    longestGapMs = Math.max(longestGapMs, t - last);
    last = t;
  }
  longestGapMs = Math.max(longestGapMs, end - last);
  const firstAck = Math.min(...inWindow.filter((s) => s.ok).map((s) => s.end));
  const errors = new Map<string, number>();
  for (const s of inWindow) if (!s.ok) errors.set(s.error!, (errors.get(s.error!) ?? 0) + 1);
  return {
    writes: inWindow.length,
    failed: inWindow.filter((s) => !s.ok).length,
    longestGapMs,
    ...(Number.isFinite(firstAck) ? { recoveryMs: firstAck - from } : {}),
    slowestMs: Math.max(0, ...inWindow.map((s) => s.end - s.start)),
    errors: [...errors].sort((a, b) => b[1] - a[1]),
  };
}
