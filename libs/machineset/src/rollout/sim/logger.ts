// The golden-log writer ("fileLogger"): one message per call; multi-line messages get their continuation lines
// indented by two spaces unless a line starts with "[".
//
// A long rollout logs every Machine name on every MD step, so the log grows with replicas x iterations (a
// 10,000-replica maxSurge-1 rollout writes gigabytes). Kept in memory it is therefore bounded; a sink streams it
// instead, and then nothing is kept.

/** In-memory limit by default: far below V8's maximum string length (~2^29 characters). */
export const DEFAULT_MAX_LOG_CHARS = 2 ** 26;

export interface FileLoggerOptions {
  /** Receives the log as it is written (in order, each chunk one or more complete lines); nothing is kept in memory. */
  sink?: (chunk: string) => void;
  /** Without a sink: the most characters kept in memory; writing more throws {@link LogLimitExceededError}. */
  maxChars?: number;
}

export class LogLimitExceededError extends Error {
  constructor(readonly maxChars: number) {
    super(
      `rollout log longer than ${maxChars} characters: stream it with the onLog option instead of keeping it in memory`,
    );
    this.name = 'LogLimitExceededError';
  }
}

export class FileLogger {
  private readonly parts: string[] = [];
  private readonly sink?: (chunk: string) => void;
  private readonly maxChars: number;
  private written = 0;

  constructor(headerName: string, options: FileLoggerOptions = {}) {
    this.sink = options.sink;
    this.maxChars = options.maxChars ?? DEFAULT_MAX_LOG_CHARS;
    this.write(`## ${headerName}\n\n`);
  }

  log(message: string): void {
    const text = message.endsWith('\n') ? message.slice(0, -1) : message;
    if (!text.includes('\n')) {
      this.write(`${text}\n`);
      return;
    }
    let chunk = '';
    for (const line of text.split('\n')) chunk += line.startsWith('[') ? `${line}\n` : `  ${line}\n`;
    this.write(chunk);
  }

  /** Characters written so far (streamed or kept). */
  get length(): number {
    return this.written;
  }

  /** True when the log goes to a sink and is not kept in memory. */
  get streamed(): boolean {
    return this.sink !== undefined;
  }

  /** The log kept in memory; empty when streamed. */
  toString(): string {
    return this.parts.join('');
  }

  private write(chunk: string): void {
    if (this.sink) {
      this.sink(chunk);
    } else {
      if (this.written + chunk.length > this.maxChars) throw new LogLimitExceededError(this.maxChars);
      this.parts.push(chunk);
    }
    this.written += chunk.length;
  }
}
