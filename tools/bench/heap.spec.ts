import { topAllocators, type SamplingHeapProfileNode } from './heap';

const node = (
  functionName: string,
  url: string,
  selfSize: number,
  children: SamplingHeapProfileNode[] = [],
): SamplingHeapProfileNode => ({
  callFrame: { functionName, url, lineNumber: 9 },
  selfSize,
  children,
});

describe('topAllocators', () => {
  it('sums self sizes of one function over its call paths, largest first, in MiB with a short location', () => {
    const MiB = 2 ** 20;
    const profile = {
      head: node('(root)', '', 0, [
        node('a', 'file:///work/main/libs/api/src/x.ts', 1 * MiB, [node('parse', '', 3 * MiB)]),
        node('b', 'file:///w/node_modules/@nestjs/core/y.js', 2 * MiB, [node('parse', '', 1 * MiB)]),
      ]),
    };
    expect(topAllocators(profile, 2)).toEqual([
      ['parse @ (native):10', 4],
      ['b @ @nestjs/core:10', 2],
    ]);
    expect(topAllocators(profile, 5)[2]).toEqual(['a @ libs/api/src/x.ts:10', 1]);
  });
});
