// kill -9 of the SQLite-backed standalone API server during concurrent writes, five times: nothing acknowledged is lost.
// More iterations: npm run bench -- apiserver-chaos [iterations].
import { runApiserverChaos } from './apiserver-chaos';

jest.setTimeout(180_000);

it('every acknowledged write survives 5 kill -9 / restart cycles on the same SQLite file', async () => {
  const results = await runApiserverChaos({ seed: 42, iterations: 5 });
  expect(results).toHaveLength(5);
  expect(results.flatMap((r) => r.violations.map((v) => `iteration ${r.iteration}: ${v}`))).toEqual([]);
  // The kills must land while writes were flowing, or the test proves nothing.
  expect(results.every((r) => r.ackedWrites > 0)).toBe(true);
  expect(results.some((r) => r.inFlightAtKill > 0)).toBe(true);
});
