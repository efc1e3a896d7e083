import js from '@eslint/js';
import { createProjectGraphAsync } from '@nx/devkit';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// @nx/enforce-module-boundaries reads nx's cached project graph and skips every check (a warning) when there is none,
// as in a fresh checkout: the eslint command line computes it first, so `npx eslint` always checks against the current
// graph. Not when nx itself loads this file (its eslint plugin infers lint targets while nx builds the graph) nor in an
// editor: they use the cached graph.
if (/[/\\]eslint(\.js)?$/.test(process.argv[1] ?? '')) await createProjectGraphAsync({ exitOnError: true });

// Layers, bottom to top (project.json "tags"); a project imports only the layers listed for it (docs/architecture.md):
//   layer:base        apimachinery                              k8s.io/apimachinery: meta types, selectors, merge patch
//   layer:api         api                                       Cluster API types, conditions, hook wire types
//   layer:plumbing    controller-runtime, ssa, patch, external, clustercache, runtime-client, inplace, index, predicates,
//                     webhooks, cluster-tree, live-view
//   layer:controller  kcp, machineset, machine, mhc, cluster     one NestJS module per controller; never import each other
//   layer:server      apiserver, kube-control-plane             the API servers controllers and tests talk to
//   layer:provider    inmemory, inplace-updater                 what an infrastructure provider / updater author writes
//   layer:testing     envtest                                   test environments (test code only)
//   layer:app         manager, inplace-updater-app, tools
const below = {
  'layer:base': [],
  'layer:api': ['layer:base'],
  'layer:plumbing': ['layer:base', 'layer:api', 'layer:plumbing'],
  'layer:controller': ['layer:base', 'layer:api', 'layer:plumbing'],
  'layer:server': ['layer:base', 'layer:api', 'layer:plumbing', 'layer:server'],
  'layer:provider': ['layer:base', 'layer:api', 'layer:plumbing', 'layer:server', 'layer:provider'],
  'layer:testing': ['layer:base', 'layer:api', 'layer:plumbing', 'layer:server', 'layer:testing'],
  'layer:app': ['*'],
};
const constraints = (extra = []) =>
  Object.entries(below).map(([sourceTag, allowed]) => ({
    sourceTag,
    onlyDependOnLibsWithTags: allowed.includes('*') ? ['*'] : [...new Set([...allowed, ...extra])],
  }));

// Test code: specs, a lib's test helpers (src/testing/, its "./testing" entry point) and integration tests with their
// support code (<project>/test/, src/integration/). It may also start servers, providers and other controllers.
const TEST_FILES = ['**/*.spec.ts', '**/src/testing/**', 'libs/*/test/**', 'apps/*/test/**', '**/src/integration/**'];
const TEST_LAYERS = ['layer:testing', 'layer:server', 'layer:provider', 'layer:controller'];
const boundaries = (depConstraints, allow = [], allowCircularSelfDependency = false) => [
  'error',
  { depConstraints, allow, allowCircularSelfDependency },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'tmp/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: { '@nx/enforce-module-boundaries': boundaries(constraints()) },
  },
  {
    files: TEST_FILES,
    rules: { '@nx/enforce-module-boundaries': boundaries(constraints(TEST_LAYERS)) },
  },
  {
    // Integration tests (<project>/test/) may use the project's own public entry point, as its users do; specs beside
    // the code import it relatively.
    files: ['libs/*/test/**', 'apps/*/test/**'],
    rules: { '@nx/enforce-module-boundaries': boundaries(constraints(TEST_LAYERS), [], true) },
  },
  {
    // The tools start the manager in-process (demo, bench, fuzz): the one project that may import the app.
    files: ['tools/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries(constraints(), ['@capi/manager']) },
  },
  {
    // docs/writing-an-extension.md shows this file as it is: an extension author imports the package by its name.
    files: ['libs/runtime-client/src/module/docs-example.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries(constraints(), [], true) },
  },
  {
    // Production code never imports test environments or test helpers (envtest itself is a test environment).
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: [...TEST_FILES, 'libs/envtest/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^@capi/envtest$', message: 'test environments are for test code only' },
            { regex: '^@capi/[^/]+/testing$', message: 'test helpers are for test code only' },
            { regex: '^\\.{1,2}/(.*/)?testing(/|$)', message: 'test helpers are for test code only' },
          ],
        },
      ],
    },
  },
);
