#!/usr/bin/env node
// Builds clusterctl (sigs.k8s.io/cluster-api/cmd/clusterctl at the release module/go.mod pins) into a cache folder
// keyed by that release and the module's go.mod/go.sum. Idempotent: a cached build returns at once.
//
//   node tools/clusterctl/build.mjs            build (or find) it, print the binary's path
//   node tools/clusterctl/build.mjs --print    print the path only if it is built (exit 1 otherwise)
import { clusterctlBinary } from './assets.mjs';

const printOnly = process.argv.includes('--print');
try {
  const bin = await clusterctlBinary({ build: !printOnly, log: (line) => process.stderr.write(`${line}\n`) });
  console.log(bin);
} catch (e) {
  console.error(`error: ${e.message}`);
  process.exit(1);
}
