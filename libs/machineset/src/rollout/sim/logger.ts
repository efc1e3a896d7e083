// The golden-log writer ("fileLogger"): one message per call; multi-line messages get their continuation lines
// indented by two spaces unless a line starts with "[".
export class FileLogger {
  private readonly parts: string[] = [];

  constructor(headerName: string) {
    this.parts.push(`## ${headerName}\n\n`);
  }

  log(message: string): void {
    const text = message.endsWith('\n') ? message.slice(0, -1) : message;
    if (!text.includes('\n')) {
      this.parts.push(`${text}\n`);
      return;
    }
    for (const line of text.split('\n')) this.parts.push(line.startsWith('[') ? `${line}\n` : `  ${line}\n`);
  }

  toString(): string {
    return this.parts.join('');
  }
}
