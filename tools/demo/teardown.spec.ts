import { cut, leftoverLine, TEARDOWN_KINDS } from './teardown';

describe('leftoverLine', () => {
  it('names the kinds with objects left, in order, and is empty when nothing is', () => {
    expect(
      leftoverLine([
        { kind: 'MachineDeployment', count: 0 },
        { kind: 'Machine', count: 3 },
        { kind: 'KubeadmControlPlane', count: 1 },
      ]),
    ).toBe('Machine x3, KubeadmControlPlane x1');
    expect(leftoverLine([{ kind: 'Cluster', count: 0 }])).toBe('');
  });

  it('waits for the Cluster itself last', () => {
    expect(TEARDOWN_KINDS[TEARDOWN_KINDS.length - 1][1]).toBe('Cluster');
  });
});

describe('cut', () => {
  it('keeps lines within 120 columns, marking a cut with an ellipsis', () => {
    expect(cut('x'.repeat(120))).toBe('x'.repeat(120));
    expect(cut('x'.repeat(130))).toBe(`${'x'.repeat(119)}…`);
  });
});
