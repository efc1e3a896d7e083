// Shared jest configuration: every project's jest.config.js spreads this.
// swc compiles TypeScript (with decorator metadata for NestJS) and the ESM-only
// dependencies of @kubernetes/client-node down to CommonJS, so tests run without
// --experimental-vm-modules.
const path = require('path');
const fs = require('fs');

const root = __dirname;
const swcrc = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
const tsconfig = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.base.json'), 'utf8'));

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(tsconfig.compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = path.join(root, target);
}

// The passes (tools/scripts/test-all.mjs):
// - embedded (the default): every spec, API server suites on the embedded server;
// - ENVTEST_TARGET=kube: on etcd + kube-apiserver, the suites that start an API server through @capi/envtest
//   (*.envtest.spec.ts) and the kube target's own (*.kube.spec.ts);
// - CAPI_TEST_PASS=unit (npm run test:unit): the unit specs, those that need no API server, binary, port or child
//   process. Left out: the specs named for what they start (envtest, kube, e2e, process, fuzz) and SERVER_SPECS;
//   tools/jest/unit-pass-guard.js fails any other spec that starts a server or a process.
const kubePass = process.env.ENVTEST_TARGET === 'kube';
const unitPass = process.env.CAPI_TEST_PASS === 'unit';

/**
 * Specs (or folders of them) whose names do not say that they start a server (an API server, a fake one, an extension
 * server, an endpoint) or a process, from the repository root; the unit pass leaves them out.
 */
const SERVER_SPECS = [
  'apps/manager/src/embedded/embedded-provider.spec.ts',
  'apps/manager/src/embedded/embedded.spec.ts',
  'apps/manager/src/health/health.spec.ts',
  'apps/manager/src/lifecycle/heap.spec.ts',
  'apps/manager/src/main.spec.ts',
  'apps/manager/src/manager.module.spec.ts',
  'libs/apiserver/test/',
  'libs/controller-runtime/src/cache/cache.spec.ts',
  'libs/controller-runtime/src/cache/informer.spec.ts',
  'libs/controller-runtime/src/client/kube-client.fake-server.spec.ts',
  'libs/controller-runtime/src/client/kube-client.rate-limit.spec.ts',
  'libs/controller-runtime/src/client/kube-client.spec.ts',
  'libs/controller-runtime/src/client/transport.spec.ts',
  'libs/controller-runtime/src/client/warnings.spec.ts',
  'libs/controller-runtime/src/controller/controller.spec.ts',
  'libs/controller-runtime/src/events/recorder.spec.ts',
  'libs/controller-runtime/src/leader/leader-elector.spec.ts',
  'libs/controller-runtime/src/manager/manager.spec.ts',
  'libs/controller-runtime/src/nest/controller-runtime.module.spec.ts',
  'libs/envtest/src/envtest.spec.ts',
  'libs/inplace-updater/src/server.spec.ts',
  'libs/inplace/src/coverage.extensions.spec.ts',
  'libs/runtime-client/src/client-certificate.spec.ts',
  'libs/runtime-client/src/client.spec.ts',
  'libs/runtime-client/src/discovery.spec.ts',
  'libs/runtime-client/src/extension-config-reconciler.spec.ts',
  'libs/runtime-client/src/in-process/in-process-updaters.spec.ts',
  'libs/runtime-client/src/metrics.spec.ts',
  'libs/runtime-client/src/module/docs-example.spec.ts',
  'libs/runtime-client/src/extension-server/extension-server.spec.ts',
  'tools/kube/build.spec.ts',
  'tools/kube/up.spec.ts',
];

const NOT_UNIT = [
  '\\.(envtest|kube|e2e|fuzz)\\.spec\\.ts$',
  '\\.process[^/]*\\.spec\\.ts$',
  '/tools/fuzz/',
  ...SERVER_SPECS.map((f) => `/${f.replace(/\./g, '\\.')}${f.endsWith('/') ? '' : '$'}`),
];

// ESM-only packages reached through @kubernetes/client-node.
const esmPackages = ['@kubernetes/client-node', 'openid-client', 'oauth4webapi', 'jose', 'jsonpath-plus', 'rfc4648'];

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j|mj)s$': [
      '@swc/jest',
      { ...swcrc, swcrc: false, jsc: { ...swcrc.jsc, parser: { ...swcrc.jsc.parser } } },
    ],
  },
  transformIgnorePatterns: [`node_modules/(?!(${esmPackages.map((p) => p.replace('/', '\\/')).join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  moduleNameMapper,
  testMatch: kubePass ? ['**/?(*.)+(envtest|kube).spec.ts'] : ['**/?(*.)+(spec|test).ts'],
  // A project whose specs all vanished (moved, renamed past testMatch) fails instead of passing silently. The kube pass
  // runs only the API server suites, which some projects (api, controller-runtime, inplace-updater) do not have.
  passWithNoTests: kubePass,
  // Generous: envtest-backed suites start real servers; CI machines have 2 cores.
  testTimeout: 30000,
  testPathIgnorePatterns: [
    '/node_modules/',
    '/dist/',
    ...(kubePass ? [] : ['\\.kube\\.spec\\.ts$']),
    ...(unitPass ? NOT_UNIT : []),
  ],
  setupFiles: unitPass ? [path.join(root, 'tools/jest/unit-pass-guard.js')] : [],
  reporters: [['default', {}], path.join(root, 'tools/jest/summary-reporter.js')],
};
