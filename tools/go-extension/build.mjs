#!/usr/bin/env node
// Builds the Go extension (test/compat/go-extension: a Runtime Extension on upstream's Go SDK) into a cache folder
// keyed by the sigs.k8s.io/cluster-api version it pins and its sources. Idempotent: a cached build returns at once.
//
//   node tools/go-extension/build.mjs            build (or find) it, print the binary's path
//   node tools/go-extension/build.mjs --print    print the path only if it is built (exit 1 otherwise)
import { goExtensionBinary } from './assets.mjs';

const printOnly = process.argv.includes('--print');
try {
  const bin = await goExtensionBinary({ build: !printOnly, log: (line) => process.stderr.write(`${line}\n`) });
  console.log(bin);
} catch (e) {
  console.error(`error: ${e.message}`);
  process.exit(1);
}
