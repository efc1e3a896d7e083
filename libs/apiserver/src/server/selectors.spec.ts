import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors';

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
    expect(matchesLabels(labels, parseLabelSelector(sel))).toBe(expected);
  });
  it('rejects garbage with a 400', () => {
    expect(() => parseLabelSelector('a=(b')).toThrow(/label selector/);
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
