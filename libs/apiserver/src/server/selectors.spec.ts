import { matchesFields, parseFieldSelector, parseLabelSelector } from './selectors';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front', env: 'prod' };
  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['tier in (front, back)', true],
    ['tier notin (front)', false],
    ['env', true],
    ['!env', false],
    ['!missing', true],
    ['app=web,tier in (back)', false],
    ['app=web,env in (prod,dev),!missing', true],
  ])('%s -> %s', (sel, expected) => {
    expect(parseLabelSelector(sel).matches(labels)).toBe(expected);
  });
  it("rejects garbage with a 400 and kube-apiserver's message", () => {
    // The message is labels.Parse's, as kube-apiserver v1.36 answers (it never said "label selector").
    expect(() => parseLabelSelector('a=(b')).toThrow(
      expect.objectContaining({ code: 400, message: "unable to parse requirement: found '(', expected: identifier" }),
    );
  });
  it('rejects what kube-apiserver rejects and the old parser let through', () => {
    for (const sel of ['a=-b', 'x<a', `a=${'v'.repeat(64)}`, '-a=b', 'a/b/c', 'x in (a,-b)']) {
      expect(() => parseLabelSelector(sel)).toThrow(expect.objectContaining({ code: 400 }));
    }
  });
});

describe('field selectors', () => {
  const obj = { metadata: { name: 'n1', namespace: 'ns' }, status: { phase: 'Running' } };
  it.each([
    ['metadata.name=n1', true],
    ['metadata.name!=n1', false],
    ['metadata.namespace=ns,status.phase=Running', true],
    ['status.phase=Pending', false],
    ['spec.nodeName=', true],
  ])('%s -> %s', (sel, expected) => {
    expect(matchesFields(obj, parseFieldSelector(sel))).toBe(expected);
  });
});

describe('field selectors of kubectl drain and describe node', () => {
  const pod = (nodeName: string, phase: string) => ({ metadata: { name: 'p' }, spec: { nodeName }, status: { phase } });
  const describeNode = parseFieldSelector('spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed');
  it.each([
    [pod('n1', 'Running'), true],
    [pod('n1', 'Pending'), true],
    [pod('n1', 'Succeeded'), false],
    [pod('n1', 'Failed'), false],
    [pod('n2', 'Running'), false],
  ])('describe node: %j -> %s', (p, expected) => {
    expect(matchesFields(p, describeNode)).toBe(expected);
  });
  it('drain: spec.nodeName', () => {
    expect(matchesFields(pod('n1', 'Running'), parseFieldSelector('spec.nodeName=n1'))).toBe(true);
    expect(matchesFields(pod('n2', 'Running'), parseFieldSelector('spec.nodeName=n1'))).toBe(false);
  });
});
