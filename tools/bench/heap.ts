// Summary of a V8 sampling heap profile (HeapProfiler.getSamplingProfile): live bytes by allocating function.
import type { Cell } from './table';

export interface SamplingHeapProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingHeapProfileNode[];
}

/** Where a frame is, short: the path from the repository's libs/apps/tools, else node_modules/<pkg>, else as given. */
function location(url: string, line: number): string {
  const m = /\/((?:libs|apps|tools)\/.*)$/.exec(url) ?? /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  return `${m ? m[1] : url || '(native)'}:${line + 1}`;
}

/**
 * The `limit` functions with the most live bytes allocated directly by them (self size summed over every call
 * path), largest first, as [function @ location, MiB] rows.
 */
export function topAllocators(profile: { head: SamplingHeapProfileNode }, limit: number): Cell[][] {
  const bytes = new Map<string, number>();
  const stack: SamplingHeapProfileNode[] = [profile.head];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.selfSize > 0) {
      const { functionName, url, lineNumber } = node.callFrame;
      const key = `${functionName || '(anonymous)'} @ ${location(url, lineNumber)}`;
      bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    }
    stack.push(...node.children);
  }
  return [...bytes.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([k, v]) => [k, v / 2 ** 20]);
}
