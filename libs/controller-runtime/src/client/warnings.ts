// API warnings (RFC 7234 Warning headers, `299 - "message"`) that kube-apiserver attaches to responses: unknown or
// duplicate fields it dropped, deprecated APIs, finalizer names, ... By default they are logged like
// controller-runtime's KubeAPIWarningLogger (pkg/log/warning_handler.go): code 299 with a message only, at info level,
// every time. Messages matching a `discard` expression are dropped, as cluster-api's
// util/apiwarnings.DiscardMatchingHandler does for warnings its users cannot act on.
import { Logger } from '@nestjs/common';

export interface ApiWarning {
  code: number;
  agent: string;
  text: string;
}

const WARNING = /^\s*(\d{3}) (\S+) "((?:[^"\\]|\\.)*)"/;

/** One Warning header value; undefined when it is not `<code> <agent> "<text>"`. */
export function parseWarningHeader(value: string): ApiWarning | undefined {
  const m = WARNING.exec(value);
  if (!m) return undefined;
  return { code: Number(m[1]), agent: m[2], text: m[3].replace(/\\(.)/g, '$1') };
}

export interface ApiWarningHandlerOptions {
  /** Logger name (default controller-runtime's "KubeAPIWarningLogger"). */
  loggerName?: string;
  /** Where messages go (default: a Nest Logger of that name, info level). */
  log?: (message: string) => void;
  /** Messages matching any of these are not logged. */
  discard?: readonly RegExp[];
}

export class ApiWarningHandler {
  private readonly log: (message: string) => void;
  private readonly discard: readonly RegExp[];

  constructor(opts: ApiWarningHandlerOptions = {}) {
    const logger = new Logger(opts.loggerName ?? 'KubeAPIWarningLogger');
    this.log = opts.log ?? ((m) => logger.log(m));
    this.discard = opts.discard ?? [];
  }

  /** The Warning header values of one response to `request` ("<method> <path>", appended to each message). */
  handle(values: readonly string[] | undefined, request: string): void {
    for (const v of values ?? []) {
      const w = parseWarningHeader(v);
      if (w?.code !== 299 || !w.text || this.discard.some((re) => re.test(w.text))) continue;
      this.log(`${w.text} (${request})`);
    }
  }
}
