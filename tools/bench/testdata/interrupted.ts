// A bench stand-in for interrupt.spec.ts: holds a server open until SIGTERM, whose stop writes a marker file.
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { stopOnInterrupt } from '../interrupt';

const server = createServer().listen(0, '127.0.0.1', () => process.stdout.write('ready\n'));
stopOnInterrupt(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  writeFileSync(process.argv[2], 'stopped');
}, (line) => process.stderr.write(`${line}\n`));
