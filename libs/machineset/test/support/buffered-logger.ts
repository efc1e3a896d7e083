// HARNESS_LOG_FILE=<path>: the controllers' log kept in memory and written to <path>.<pid> when the harness closes.
// Printing as it goes (HARNESS_LOG=1) slows the controllers enough to hide the races a log is wanted for.
import { appendFileSync } from 'node:fs';
import type { LoggerService } from '@nestjs/common';

export class BufferedLogger implements LoggerService {
  private readonly lines: string[] = [];
  private readonly start = Date.now();

  constructor(private readonly path: string) {}

  private push(level: string, message: unknown, params: unknown[]): void {
    const context = params.length > 0 ? ` [${String(params[params.length - 1])}]` : '';
    const t = ((Date.now() - this.start) / 1000).toFixed(3);
    this.lines.push(`${t}s ${level}${context} ${typeof message === 'string' ? message : JSON.stringify(message)}`);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.push('log', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.push('warn', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.push('error', message, params);
  }

  flush(): void {
    appendFileSync(`${this.path}.${process.pid}`, this.lines.join('\n') + '\n');
    this.lines.length = 0;
  }
}
