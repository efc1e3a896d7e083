import { conditionTaints, planNodeTaints } from './node-lifecycle';
import { node, snapshot } from './test-fixtures';

const withTaints = (n: ReturnType<typeof node>, taints: object[]) => ({
  ...n,
  spec: { ...(n.spec as object), taints },
});
const notReadyTaint = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
const cpTaint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

describe('node lifecycle NoSchedule taints (nodelifecycle doNoScheduleTaintingPass)', () => {
  it.each([
    ['Ready', node('a'), []],
    ['not Ready', node('a', { ready: false }), ['node.kubernetes.io/not-ready']],
    ['cordoned', node('a', { unschedulable: true }), ['node.kubernetes.io/unschedulable']],
    ['no Ready condition', { ...node('a'), status: {} }, ['node.kubernetes.io/unreachable']],
  ])('%s', (_name, n, keys) => expect(conditionTaints(n).map((t) => t.key)).toEqual(keys));

  it("removes the admission's not-ready taint once the Node is Ready, keeping other taints", () =>
    expect(planNodeTaints(snapshot({ nodes: [withTaints(node('a'), [cpTaint, notReadyTaint])] }))).toEqual([
      { op: 'patch', ref: expect.objectContaining({ name: 'a' }), patch: { spec: { taints: [cpTaint] } } },
    ]));

  it('nothing to do when the taints match', () =>
    expect(planNodeTaints(snapshot({ nodes: [withTaints(node('a', { ready: false }), [notReadyTaint])] }))).toEqual(
      [],
    ));
});
