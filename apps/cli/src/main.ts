#!/usr/bin/env node
// The `capi-inplace` executable (package.json "bin").
import { runCli } from './cli';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`error: ${(e as Error)?.message ?? String(e)}\n`);
    process.exitCode = 1;
  },
);
