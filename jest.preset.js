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
//   process. In libs and apps that is a place: the specs under src/ (integration specs live in test/, see
//   docs/architecture.md); tools/ has no src/test split, so there the specs named for what they start (envtest, kube,
//   e2e, process, fuzz) are left out. tools/jest/unit-pass-guard.js fails any spec in the pass that starts a server or
//   a process.
const kubePass = process.env.ENVTEST_TARGET === 'kube';
const unitPass = process.env.CAPI_TEST_PASS === 'unit';

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NOT_UNIT = [
  `^${escapeRegExp(root)}/(libs|apps)/[^/]+/(?!src/)`,
  `^${escapeRegExp(root)}/tools/.*\\.(envtest|kube|e2e|fuzz|process)\\.([^/]*\\.)?spec\\.ts$`,
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
