#!/usr/bin/env node
// `npm start`: runs the manager from source (swc compiles TypeScript on the fly, with decorator metadata).
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../..', import.meta.url));
const child = spawn(
  process.execPath,
  ['-r', '@swc-node/register', join(root, 'apps/manager/src/main.ts'), ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      TS_NODE_PROJECT: join(root, 'tsconfig.json'),
      SWC_NODE_PROJECT: join(root, 'tsconfig.json'),
    },
  },
);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
// The manager reports its own exits; one it cannot report (SIGKILL, e.g. the kernel's OOM killer) is reported here.
child.on('exit', (code, signal) => {
  if (signal) {
    process.stderr.write(
      `error: the manager process (pid ${child.pid}) was killed by ${signal}${signal === 'SIGKILL' ? ' (out of memory, or killed by another process)' : ''}\n`,
    );
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  }
  process.exit(code ?? 1);
});
