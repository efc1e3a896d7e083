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

// ESM-only packages reached through @kubernetes/client-node.
// ENVTEST_TARGET=kube: the pass on etcd + kube-apiserver runs the suites that start an API server through
// @capi/envtest (*.envtest.spec.ts) and the kube target's own (*.kube.spec.ts); the embedded pass runs the rest.
const kubePass = process.env.ENVTEST_TARGET === 'kube';

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
  passWithNoTests: true,
  // Generous: envtest-backed suites start real servers; CI machines have 2 cores.
  testTimeout: 30000,
  testPathIgnorePatterns: ['/node_modules/', '/dist/', ...(kubePass ? [] : ['\\.kube\\.spec\\.ts$'])],
  reporters: [['default', {}], path.join(root, 'tools/jest/summary-reporter.js')],
};
