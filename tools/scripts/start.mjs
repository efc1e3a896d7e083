#!/usr/bin/env node
// `npm start`: runs the manager from source (swc compiles TypeScript on the fly, with decorator metadata).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../..', import.meta.url));
const child = spawn(process.execPath, ['-r', '@swc-node/register', join(root, 'apps/manager/src/main.ts'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TS_NODE_PROJECT: join(root, 'tsconfig.json'), SWC_NODE_PROJECT: join(root, 'tsconfig.json') },
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
