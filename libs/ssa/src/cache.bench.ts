// Benchmark (not a test): `npx jest -c libs/ssa/jest.config.js --testMatch '**/cache.bench.ts'`.
// Prints the cost of the cache-hit path (prepare + identifier + lookup) for small and large intents; no assertions
// on time. A cache hit must stay far cheaper than an apply round trip (~ms).
import { SsaCache } from './cache';
import { canonicalJson, fnv32a } from '@capi/apimachinery';
import { computeRequestIdentifier } from './identifier';
import { prepareModified } from './prepare';

function intent(n: number) {
  return {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'DevMachine',
    metadata: {
      name: 'm',
      namespace: 'ns',
      labels: Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, `v${i}`])),
    },
    spec: {
      containers: Array.from({ length: n }, (_, i) => ({
        name: `c${i}`,
        image: `img:${i}`,
        ports: [{ containerPort: 80 + i }],
      })),
    },
    status: { ready: true },
  };
}

function time(label: string, runs: number, fn: () => void) {
  fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) fn();
  const us = Number(process.hrtime.bigint() - start) / 1e3 / runs;
  console.log(`${label}: ${us.toFixed(1)} µs/op`);
}

it('benchmark', () => {
  const cache = new SsaCache({ controllerName: 'bench', maxEntries: 10_000 });
  for (let i = 0; i < 10_000; i++) cache.add(`key-${i}`);
  for (const n of [5, 100, 1000]) {
    const obj = intent(n);
    const prepared = prepareModified(obj);
    time(`n=${n} prepareModified`, n < 1000 ? 2000 : 100, () => prepareModified(obj));
    time(`n=${n} canonicalJson`, n < 1000 ? 2000 : 100, () => canonicalJson(prepared));
    const text = canonicalJson(prepared);
    time(`n=${n} fnv32a (${text.length} chars)`, n < 1000 ? 2000 : 100, () => fnv32a(text));
    time(`n=${n} prepare+identifier+has`, n < 1000 ? 2000 : 100, () => {
      cache.has(computeRequestIdentifier('12345', prepareModified(obj)), 'DevMachine');
    });
  }
  time('add with full LRU (evicts one)', 20_000, () => cache.add(`k-${Math.random()}`));
});
