// Upstream util/labels/format/helpers_test.go (TestNameLabelValue, TestMustMatchLabelValueForName).
import { mustEqualLabelValue, mustFormatLabelValue } from './format';

const LONG = 'machineSetName'.repeat(12);

describe('mustFormatLabelValue', () => {
  it.each([
    ['return the name if it is less than 63 characters', 'machineSetName', 'machineSetName'],
    ['return a hash for a name with more than 63 characters', LONG, 'hash_FR_ghQ_z'],
  ])('%s', (_, value, want) => expect(mustFormatLabelValue(value)).toBe(want));

  it('hashes values that are not valid label values whatever their length', () => {
    expect(mustFormatLabelValue('-starts-with-dash')).toMatch(/^hash_[A-Za-z0-9_-]{6}_z$/);
    expect(mustFormatLabelValue('x'.repeat(63))).toBe('x'.repeat(63));
    expect(mustFormatLabelValue('x'.repeat(64))).toMatch(/^hash_/);
  });
});

describe('mustEqualLabelValue', () => {
  it.each([
    ['match labels when the name is short', 'ms1', 'ms1', true],
    ["don't match different labels when the name is short", 'ms1', 'notMS1', false],
    ["don't match labels when the name is long", LONG, 'hash_Nx4RdE_z', false],
    ['match labels when the name is long', LONG, 'hash_FR_ghQ_z', true],
  ])('%s', (_, value, label, want) => expect(mustEqualLabelValue(value, label)).toBe(want));
});
