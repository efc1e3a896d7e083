// A bench stand-in for interrupt.process.spec.ts: its run holds a server open and fails once the server closes (as a
// rollout fails when its processes are stopped); SIGTERM closes it, and its stop writes a marker file.
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { stopOnInterrupt } from '../interrupt';

const server = createServer().listen(0, '127.0.0.1', () => process.stdout.write('ready\n'));
const interrupt = stopOnInterrupt(
  async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    writeFileSync(process.argv[2], 'stopped');
  },
  (line) => process.stderr.write(`${line}\n`),
);
const run = new Promise<void>((_, reject) => server.once('close', () => reject(new Error('the server went away'))));
run.catch((e: Error) => {
  if (interrupt.interrupted) return interrupt.exiting();
  process.stderr.write(`error: ${e.message}\n`);
  process.exitCode = 1;
});
