#!/usr/bin/env node
// Builds the real Kubernetes components the kube test target runs (kube-apiserver, etcd) from the Go module proxy,
// pinned by the wrapper modules in tools/kube/modules, into a cache folder keyed by version and go.sum, the way
// controller-runtime's envtest uses binaries from setup-envtest. Idempotent: a cached build returns at once.
//
//   npm run kube:build            build (or find) both, print the folder
//   npm run kube:build -- --print print the folder only if everything is cached (exit 1 otherwise)
//
// KUBEBUILDER_ASSETS, when set, names a folder that already holds kube-apiserver and etcd: nothing is built.
import { kubeAssets } from './assets.mjs';

const printOnly = process.argv.includes('--print');
try {
  const dir = await kubeAssets({ build: !printOnly, log: (line) => process.stderr.write(`${line}\n`) });
  console.log(dir);
} catch (e) {
  console.error(`error: ${e.message}`);
  process.exit(1);
}
