// Cases of k8s.io/apimachinery pkg/util/validation/validation_test.go TestIsDNS1123Label / TestIsDNS1035Label.
import { isDNS1035Label, isDNS1123Label } from './content';

const a63 = 'a'.repeat(63);
const a64 = 'a'.repeat(64);
const common = ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', a63];
const bad = [
  ...['', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1'],
  ...['_', 'a_', '_a', 'a_b', '1_', '_1', '1_2', '.', 'a.', '.a', 'a.b', '1.', '.1', '1.2'],
  ...[' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', a64],
];
const digitsFirst = ['0', '01', '012', '1a', '1-a', '1--a--b--2'];

describe('isDNS1123Label', () => {
  it.each([...common, ...digitsFirst])('accepts %j', (v) => expect(isDNS1123Label(v)).toEqual([]));
  it.each(bad)('rejects %j', (v) => expect(isDNS1123Label(v)).not.toEqual([]));
  it('words errors as upstream', () => {
    expect(isDNS1123Label('bad.name')).toEqual(['must not contain dots']);
    expect(isDNS1123Label('INVALID')).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(isDNS1123Label(a64)).toEqual(['must be no more than 63 characters']);
  });
});

describe('isDNS1035Label', () => {
  it.each(common)('accepts %j', (v) => expect(isDNS1035Label(v)).toEqual([]));
  it.each([...digitsFirst, ...bad])('rejects %j', (v) => expect(isDNS1035Label(v)).not.toEqual([]));
  it('words errors as upstream', () => {
    expect(isDNS1035Label('NOT_ALLOWED')).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
});
