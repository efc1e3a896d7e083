// Benchmark (not a test): `npx jest -c libs/apiserver/jest.config.js --testMatch '**/merge.bench.ts'`.
// Prints the time of applyIntent/trackUpdate on a large object; no timing assertions.
import { applyIntent, trackUpdate } from './apply';
import { widget, widgetSchema } from './test-fixtures';

function big(n: number, version: number) {
  const labels: Record<string, string> = {};
  for (let i = 0; i < n; i++) labels[`l${i}`] = `v${version}`;
  return widget(
    {
      containers: Array.from({ length: n }, (_, i) => ({
        name: `c${i}`,
        image: `img:${version}`,
        ports: [{ containerPort: 80 + i, protocol: 'TCP' }],
      })),
    },
    { labels },
    { conditions: Array.from({ length: n }, (_, i) => ({ type: `T${i}`, status: 'True' })) },
  );
}

function time(label: string, runs: number, fn: () => void) {
  fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) fn();
  const ms = Number(process.hrtime.bigint() - start) / 1e6 / runs;
  // eslint-disable-next-line no-console
  console.log(`${label}: ${ms.toFixed(2)} ms/op`);
}

it('benchmark', () => {
  for (const n of [10, 100, 500]) {
    const created = trackUpdate({
      live: undefined,
      updated: big(n, 1),
      manager: 'creator',
      schema: widgetSchema,
      now: 't0',
      ignoreStatus: false,
    });
    const applied = applyIntent({
      live: created,
      intent: big(n, 2),
      manager: 'applier',
      force: true,
      schema: widgetSchema,
      now: 't1',
      ignoreStatus: false,
    });
    time(`n=${n} trackUpdate`, n < 500 ? 40 : 5, () =>
      trackUpdate({
        live: applied,
        updated: big(n, 3),
        manager: 'w',
        schema: widgetSchema,
        now: 't2',
        ignoreStatus: false,
      }),
    );
    time(`n=${n} applyIntent (re-apply)`, n < 500 ? 40 : 5, () =>
      applyIntent({
        live: applied,
        intent: big(n, 2),
        manager: 'applier',
        force: false,
        schema: widgetSchema,
        now: 't2',
        ignoreStatus: false,
      }),
    );
  }
});
