// V8's garbage headroom. Left to itself V8 sizes its heap from the memory the host has and lets the old generation
// grow to 2.5-4 times what survived the last full collection: at fleet scale most of the manager's RSS is garbage
// waiting (tools/bench/README.md, "Memory at fleet scale"). A fixed growing factor bounds it relative to the live heap,
// as Go's GOGC does for upstream's manager, at the cost of more frequent full collections; no absolute cap, so a
// growing fleet never runs into an out-of-memory abort because of it.
import { setFlagsFromString } from 'node:v8';

/** Applies --heap-growing-percent to the running V8 (read at every full GC, so it takes effect from the next one). */
export function applyHeapGrowingPercent(percent: number): void {
  if (!Number.isInteger(percent) || percent < 0)
    throw new Error(`heap growing percent must be an integer >= 0, got ${percent}`);
  if (percent === 0) return; // V8's own heuristics
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
