// Cases of k8s.io/apimachinery v0.36.3 pkg/labels/selector_test.go and pkg/apis/meta/v1/helpers_test.go, plus the
// messages kube-apiserver v1.36.3 answers with (its 400 Status carries labels.Parse's error as it is).
import { LabelSelectorError, newRequirement, type Operator } from './requirement';
import { everything, labelSelectorAsSelector, nothing, parseSelector } from './selector';

const parseError = (s: string): string | undefined => {
  try {
    parseSelector(s);
    return undefined;
  } catch (e) {
    if (!(e instanceof LabelSelectorError)) throw e;
    return e.message;
  }
};

describe('labels.Parse (selector_test.go)', () => {
  it('TestSelectorParse: good strings restring without spaces, bad ones fail', () => {
    for (const good of ['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5']) {
      expect(parseSelector(good).toString()).toBe(good.replace(/ /g, ''));
    }
    for (const bad of ['x=a||y=b', 'x==a==b', '!x=a', 'x<a']) expect(parseError(bad)).toBeDefined();
  });

  it('TestDeterministicParse', () => {
    expect(parseSelector('x=a,a=x').toString()).toBe(parseSelector('a=x,x=a').toString());
  });

  it('TestSelectorMatches', () => {
    const match = (s: string, labels: Record<string, string>) => parseSelector(s).matches(labels);
    expect(match('', { x: 'y' })).toBe(true);
    expect(match('x=y', { x: 'y' })).toBe(true);
    expect(match('x=y,z=w', { x: 'y', z: 'w' })).toBe(true);
    expect(match('x!=y,z!=w', { x: 'z', z: 'a' })).toBe(true);
    expect(match('notin=in', { notin: 'in' })).toBe(true); // in and notin in exact match
    expect(match('x', { x: 'z' })).toBe(true);
    expect(match('!x', { y: 'z' })).toBe(true);
    expect(match('x>1', { x: '2' })).toBe(true);
    expect(match('x<1', { x: '0' })).toBe(true);
    expect(match('x=z', {})).toBe(false);
    expect(match('x=y', { x: 'z' })).toBe(false);
    expect(match('x=y,z=w', { x: 'w', z: 'w' })).toBe(false);
    expect(match('x!=y,z!=w', { x: 'z', z: 'w' })).toBe(false);
    expect(match('x', { y: 'z' })).toBe(false);
    expect(match('!x', { x: 'z' })).toBe(false);
    expect(match('x>1', { x: '0' })).toBe(false);
    expect(match('x<1', { x: '2' })).toBe(false);
    const labelset = { foo: 'bar', baz: 'blah' };
    expect(match('foo=bar', labelset)).toBe(true);
    expect(match('baz=blah', labelset)).toBe(true);
    expect(match('foo=bar,baz=blah', labelset)).toBe(true);
    expect(match('foo=blah', labelset)).toBe(false);
    expect(match('baz=bar', labelset)).toBe(false);
    expect(match('foo=bar,foobar=bar,baz=blah', labelset)).toBe(false);
  });

  it('TestEverything / TestMatchesNothing', () => {
    expect(everything().matches({ x: 'y' })).toBe(true);
    expect(everything().empty).toBe(true);
    expect(nothing().matches({})).toBe(false);
    expect(nothing().empty).toBe(false);
    expect(parseSelector('').empty).toBe(true);
    expect(parseSelector('a,!a').matches({})).toBe(false);
  });

  it('TestParseOperator: the operator position lists the binary operators', () => {
    expect(parseError('x !')).toBe("unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt");
    expect(parseError('x exists')).toBe(
      "unable to parse requirement: found 'exists', expected: in, notin, =, ==, !=, gt, lt",
    );
    expect(parseError('x (')).toBe("unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt");
  });

  it('TestSetSelectorParser', () => {
    const cases: [string, string | undefined][] = [
      ['', ''],
      ['\rx', 'x'],
      ['this-is-a-dns.domain.com/key-with-dash', 'this-is-a-dns.domain.com/key-with-dash'],
      [
        'this-is-another-dns.domain.com/key-with-dash in (so,what)',
        'this-is-another-dns.domain.com/key-with-dash in (so,what)',
      ],
      ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)'],
      ['foo  in\t (abc)', 'foo in (abc)'],
      ['x notin\n (abc)', 'x notin (abc)'],
      ['x  notin\t\t\t(abc,def)', 'x notin (abc,def)'],
      ['x in (abc,def)', 'x in (abc,def)'],
      ['x in (abc,)', 'x in (,abc)'],
      ['x in (abc,abc)', 'x in (abc)'],
      ['x in ()', 'x in ()'],
      ['x in (a,,)', 'x in (,a)'],
      ['x in (a,,,)', 'x in (,a)'],
      ['x in (a,,,,,,)', 'x in (,a)'],
      ['x in (a,,a,,a,,a,,)', 'x in (,a)'],
      ['x notin (abc,,def),bar,z in (),w', 'bar,w,x notin (,abc,def),z in ()'],
      ['x,y in (a)', 'x,y in (a)'],
      ['x=a', 'x=a'],
      ['x>1', 'x>1'],
      ['x<7', 'x<7'],
      ['x=a,y!=b', 'x=a,y!=b'],
      ['x=a,y!=b,z in (h,i,j)', 'x=a,y!=b,z in (h,i,j)'],
      ['x=a||y=b', undefined],
      ['x,,y', undefined],
      [',x,y', undefined],
      ['x nott in (y)', undefined],
      ['x notin ( )', 'x notin ()'],
      ['x notin (, a)', 'x notin (,a)'],
      ['a in (xyz),', undefined],
      ['a in (xyz)b notin ()', undefined],
      ['a ', 'a'],
      ['a in (x,y,notin, z,in)', 'a in (in,notin,x,y,z)'], // operator 'in' inside list of identifiers
      ['a in (xyz abc)', undefined], // no comma
      ['a notin(', undefined], // bad formed
      ['a (', undefined], // cpar
      ['(', undefined], // opar
    ];
    for (const [input, out] of cases) {
      if (out === undefined) expect([input, parseError(input)]).toEqual([input, expect.any(String)]);
      else expect([input, parseSelector(input).toString()]).toEqual([input, out]);
    }
    expect(parseSelector('x in ()').requirements).toEqual([{ key: 'x', operator: 'in', values: [''] }]);
  });

  it('kube-apiserver messages for rejected selectors', () => {
    const labelValue =
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    const keyRegex =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const cases: [string, string][] = [
      ['a=(b', "unable to parse requirement: found '(', expected: identifier"],
      ['-a=b', `unable to parse requirement: <nil>: Invalid value: "-a": name part ${keyRegex}`],
      ['a=-b', `unable to parse requirement: values[0][a]: Invalid value: "-b": ${labelValue}`],
      ['x in (a,-b)', `unable to parse requirement: values[0][x]: Invalid value: "-b": ${labelValue}`],
      ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${labelValue}`],
      [
        `a=${'x'.repeat(64)}`,
        `unable to parse requirement: values[0][a]: Invalid value: "${'x'.repeat(64)}": must be no more than 63 bytes`,
      ],
      [
        'x<a',
        `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
      ],
      [
        'a/b/c',
        `unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key ${keyRegex} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ],
      [
        'A_b.c/x',
        `unable to parse requirement: <nil>: Invalid value: "A_b.c/x": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
      ['a=b,', "found '', expected: identifier after ','"],
      ['x,,y', "found ',', expected: identifier after ','"],
      [',x', "found ',', expected: !, identifier, or 'end of string'"],
      ['(', "found '(', expected: !, identifier, or 'end of string'"],
      ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
      ['!x=a', "found '=', expected: ',' or 'end of string'"],
      ['x==a==b', "found '==', expected: ',' or 'end of string'"],
      ['a in (x', "unable to parse requirement: found '', expected: ',' or ')'"],
      ['a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
      ['a in (xyz abc)', "unable to parse requirement: found 'abc', expected: ',' or ')'"],
    ];
    for (const [input, message] of cases) expect([input, parseError(input)]).toEqual([input, message]);
  });
});

describe('NewRequirement (TestRequirementConstructor)', () => {
  const error = (key: string, op: string, values?: string[]): string | undefined => {
    try {
      newRequirement(key, op, values);
      return undefined;
    } catch (e) {
      return (e as Error).message;
    }
  };

  it('accepts valid requirements', () => {
    const ok: [string, Operator, string[]?][] = [
      ['x3', 'in', ['foo']],
      ['x4', 'notin', ['foo']],
      ['x6', 'exists'],
      ['x7', '!'],
      ['x9', 'in', ['bar']],
      ['x11', 'gt', ['1']],
      ['x12', 'lt', ['6']],
    ];
    for (const [key, op, values] of ok) expect(error(key, op, values)).toBeUndefined();
  });

  it('names the offending field', () => {
    expect(error('x1', 'in')).toMatch(
      /^values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty$/,
    );
    expect(error('x2', 'notin', [])).toMatch(/^values: Invalid value: \[\]: /);
    expect(error('x5', '=', ['bar', 'foo'])).toBe(
      'values: Invalid value: ["bar","foo"]: exact-match compatibility requires one single value',
    );
    expect(error('x8', 'exists', ['foo'])).toMatch(/^values: Invalid value: \["foo"\]: values set must be empty/);
    expect(error('x13', 'gt', [])).toMatch(/^values: Invalid value: \[\]: for 'Gt', 'Lt' operators, exactly one/);
    expect(error('x14', 'gt', ['bar'])).toMatch(/^values\[0\]: Invalid value: "bar": .* must be an integer$/);
    expect(error('x15', 'lt', ['bar'])).toMatch(/^values\[0\]: /);
    expect(error('a'.repeat(254), 'exists')).toMatch(/^key: Invalid value: "a{254}": /);
    expect(error('x16', '=', ['a'.repeat(254)])).toMatch(/^values\[0\]\[x16\]: Invalid value: /);
    expect(error('x17', '=', ['a b'])).toMatch(/^values\[0\]\[x17\]: Invalid value: "a b": /);
    expect(error('x18', 'unsupportedOp')).toBe(
      'operator: Unsupported value: "unsupportedOp": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"',
    );
    // Several problems: all of them, in brackets (ErrorList.ToAggregate).
    expect(error('-k', 'in', [])).toMatch(/^\[key: Invalid value: "-k": .*, values: Invalid value: \[\]: .*\]$/);
  });
});

describe('Requirement.String and matching (TestToString, TestRequirementSelectorMatching)', () => {
  it('renders each operator', () => {
    expect(parseSelector('x in (def,abc),y notin (jkl),z').toString()).toBe('x in (abc,def),y notin (jkl),z');
    expect(parseSelector('x notin (abc,def),y!=jkl,!z').toString()).toBe('x notin (abc,def),y!=jkl,!z');
    expect(parseSelector('x notin (abc),y in (jkl,mno),z notin ()').toString()).toBe(
      'x notin (abc),y in (jkl,mno),z notin ()',
    );
    expect(parseSelector('x=abc,y==jkl,z!=a,z').toString()).toBe('x=abc,y==jkl,z!=a,z');
    expect(parseSelector('x>2,y<8,z').toString()).toBe('x>2,y<8,z');
  });

  it('matches', () => {
    const set = { x: 'foo', y: 'baz' };
    expect(parseSelector('x in (foo),y notin (alpha)').matches(set)).toBe(true);
    expect(parseSelector('x in (foo),y in (alpha)').matches(set)).toBe(false);
    expect(parseSelector('x notin (),y').matches({ y: '' })).toBe(true);
    expect(parseSelector('!x,y').matches({ y: '' })).toBe(true);
    expect(parseSelector('x notin (),!y').matches({ y: '' })).toBe(false);
    expect(parseSelector('x in ()').matches({ y: 'baz' })).toBe(false);
    expect(parseSelector('z>1').matches({ z: '2' })).toBe(true);
    expect(parseSelector('z>1').matches({ z: 'v2' })).toBe(false);
  });
});

describe('RequiresExactMatch', () => {
  it('answers for =, == and in with one value, on the first requirement of the key', () => {
    expect(parseSelector('key in (value)').requiresExactMatch('key')).toBe('value');
    expect(parseSelector('key in (value,value2)').requiresExactMatch('key')).toBeUndefined();
    expect(parseSelector('key in (value,value1),key2 in (value2)').requiresExactMatch('key2')).toBe('value2');
    expect(parseSelector('key=value').requiresExactMatch('key')).toBe('value');
    expect(parseSelector('key==value').requiresExactMatch('key')).toBe('value');
    expect(parseSelector('key!=value').requiresExactMatch('key')).toBeUndefined();
    expect(parseSelector('key in (value),key2 in (value2)').requiresExactMatch('key')).toBe('value');
  });
});

describe('LabelSelectorAsSelector (helpers_test.go)', () => {
  const matchLabels = { foo: 'bar' };
  const matchExpressions = [{ key: 'baz', operator: 'In', values: ['qux', 'norf'] }];

  it('converts like labels.Parse of the equivalent string', () => {
    expect(labelSelectorAsSelector(undefined)).toBe(nothing());
    expect(labelSelectorAsSelector({})).toBe(everything());
    expect(labelSelectorAsSelector({ matchLabels }).toString()).toBe(parseSelector('foo=bar').toString());
    expect(labelSelectorAsSelector({ matchExpressions }).toString()).toBe('baz in (norf,qux)');
    expect(labelSelectorAsSelector({ matchLabels, matchExpressions }).toString()).toBe('baz in (norf,qux),foo=bar');
    expect(() =>
      labelSelectorAsSelector({ matchExpressions: [{ key: 'baz', operator: 'Exists', values: ['qux', 'norf'] }] }),
    ).toThrow(LabelSelectorError);
  });

  it('does not modify its input', () => {
    const input = { matchLabels: { ...matchLabels }, matchExpressions: [{ ...matchExpressions[0] }] };
    labelSelectorAsSelector(input);
    expect(input).toEqual({ matchLabels, matchExpressions });
  });

  it('validates keys and values as NewRequirement does', () => {
    expect(() => labelSelectorAsSelector({ matchLabels: { 'bad key': 'x' } })).toThrow(
      /^key: Invalid value: "bad key": name part must consist/,
    );
    expect(() => labelSelectorAsSelector({ matchLabels: { k: '-x' } })).toThrow(/^values\[0\]\[k\]: Invalid value/);
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toThrow(
      '"Gt" is not a valid label selector operator',
    );
  });
});
