// The growing factor reaches V8: checked in a child process (whose V8 this test may change), from V8's own trace of the
// old-generation limit it sets after a full GC ("[HeapController] Limit: old size: …, new limit: … (factor)").
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { applyHeapGrowingPercent } from '@capi/manager';

function factorAfterFullGc(percent: number): number {
  const script = `
    require(${JSON.stringify(join(__dirname, '../../src/lifecycle/heap.ts'))}).applyHeapGrowingPercent(Number(process.argv[1]));
    require('node:v8').setFlagsFromString('--trace-gc-verbose');
    let live = []; for (let i = 0; i < 200000; i++) live.push({ x: 'y' + i });
    global.gc();`;
  const r = spawnSync(process.execPath, ['--expose-gc', '-r', '@swc-node/register', '-e', script, String(percent)], {
    encoding: 'utf8',
    cwd: join(__dirname, '../../../..'),
  });
  const m = /\[HeapController\] Limit: old size: \d+ KB, new limit: \d+ KB \(([\d.]+)\)/.exec(r.stdout);
  if (!m) throw new Error(`no heap limit trace (exit ${r.status}): ${r.stderr.slice(0, 500)}`);
  return Number(m[1]);
}

describe('applyHeapGrowingPercent', () => {
  it('rejects negative and fractional percents', () => {
    expect(() => applyHeapGrowingPercent(-1)).toThrow(/integer >= 0, got -1/);
    expect(() => applyHeapGrowingPercent(2.5)).toThrow(/integer >= 0, got 2.5/);
  });

  it('sets the factor V8 grows the old generation by after a full GC; 0 leaves V8 its own', () => {
    expect(factorAfterFullGc(100)).toBe(2);
    expect(factorAfterFullGc(50)).toBe(1.5);
    // V8's own factor for a small heap that a fast GC left is its maximum, 4 (any other than the fixed ones shows it).
    expect(factorAfterFullGc(0)).not.toBe(2);
  });
});
