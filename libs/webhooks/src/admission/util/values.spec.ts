import { goLabelSelector, intOrPercentError, isValidPortNum } from './values';

describe('intOrPercentError (intstr.GetScaledValueFromIntOrPercent)', () => {
  it.each<number | string>([10, 0, -3, '10%', '0%', '-5%', '+5%'])('accepts %j', (v) =>
    expect(intOrPercentError(v)).toBeUndefined(),
  );
  it.each<[number | string, string]>([
    ['abcdef', 'invalid value for IntOrString: invalid type: string is not a percentage'],
    ['10', 'invalid value for IntOrString: invalid type: string is not a percentage'],
    ['abc%', 'invalid value for IntOrString: invalid value "abc%": strconv.Atoi: parsing "abc": invalid syntax'],
    ['%', 'invalid value for IntOrString: invalid value "%": strconv.Atoi: parsing "": invalid syntax'],
    [
      '99999999999999999999%',
      'invalid value for IntOrString: invalid value "99999999999999999999%": strconv.Atoi: parsing "99999999999999999999": value out of range',
    ],
  ])('rejects %j', (v, msg) => expect(intOrPercentError(v)).toBe(msg));
});

describe('isValidPortNum', () => {
  it.each([1, 2, 1000, 16384, 32768, 65535])('accepts %d', (p) => expect(isValidPortNum(p)).toEqual([]));
  it.each([-1, 0, 65536, 90000])('rejects %d', (p) =>
    expect(isValidPortNum(p)).toEqual(['must be between 1 and 65535, inclusive']),
  );
});

describe('goLabelSelector', () => {
  it('prints as encoding/json prints metav1.LabelSelector', () => {
    expect(
      JSON.stringify(
        goLabelSelector({
          matchExpressions: [{ operator: 'Invalid-Operator' } as never, { key: 'a', operator: 'In', values: [] }],
          matchLabels: { b: '2', a: '1' },
        }),
      ),
    ).toBe(
      '{"matchLabels":{"a":"1","b":"2"},"matchExpressions":[{"key":"","operator":"Invalid-Operator"},{"key":"a","operator":"In"}]}',
    );
    expect(JSON.stringify(goLabelSelector({}))).toBe('{}');
  });
});
