// blang/semver Parse and ParseTolerant (their errors end up in KCP's field errors), util/version and util/container.
import { imageTagIsValid, parseSemver, parseTolerant, parseTolerantImageTag, versionString } from './versions';
import { validUpMigration } from './coredns';

describe('parseSemver (blang semver.Parse)', () => {
  it.each([
    ['1.16.6', undefined],
    ['1.20.0-alpha.0.734+ba502ee555924a', undefined],
    ['', 'Version string empty'],
    ['1.16', 'No Major.Minor.Patch elements found'],
    ['v1.16.6', 'Invalid character(s) found in major number "v1"'],
    ['01.2.3', 'Major number must not contain leading zeroes "01"'],
    ['1.x.3', 'Invalid character(s) found in minor number "x"'],
    ['1.2.03', 'Patch number must not contain leading zeroes "03"'],
    ['1.2.3-', 'Prerelease is empty'],
    ['1.2.3-01', 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ['1.2.3-a_b', 'Invalid character(s) found in prerelease "a_b"'],
    ['1.2.3+', 'Build meta data is empty'],
    ['1.2.3+a_b', 'Invalid character(s) found in build meta data "a_b"'],
    [' 1.2.3', 'Invalid character(s) found in major number " 1"'],
    ['.0.0', 'strconv.ParseUint: parsing "": invalid syntax'],
  ])('%j', (s, error) => {
    expect(parseSemver(s).error).toBe(error);
  });
});

describe('parseTolerant (blang semver.ParseTolerant)', () => {
  it.each([
    ['v1.19.0', '1.19.0'],
    [' v1.19 ', '1.19.0'],
    ['v1', '1.0.0'],
    ['v01.02.03', '1.2.3'],
    ['v1.20.0-alpha.0.734+ba502ee555924a', '1.20.0-alpha.0.734+ba502ee555924a'],
  ])('%j → %s', (s, v) => {
    const r = parseTolerant(s);
    expect(r.error).toBeUndefined();
    expect(versionString(r.version!)).toBe(v);
  });

  it.each([
    ['invalid-version', 'Short version cannot contain PreRelease/Build meta data'],
    // "v1" is not all zeros, so ParseTolerant prefixes a zero.
    ['vv1.2.3', 'Invalid character(s) found in major number "0v1"'],
    ['', 'strconv.ParseUint: parsing "": invalid syntax'],
  ])('%j fails: %s', (s, error) => {
    expect(parseTolerant(s).error).toBe(error);
  });

  it('image tags spell build metadata with "_"', () => {
    expect(versionString(parseTolerantImageTag('v1.6.6_foobar.1').version!)).toBe('1.6.6+foobar.1');
  });
});

describe('imageTagIsValid (util/container ImageTagIsValid)', () => {
  it.each([
    ['v9.1.1_validBuild1', true],
    ['', true],
    ['v9.1.1+invalidBuild1', false],
    ['a/b', false],
  ])('%j → %s', (tag, ok) => expect(imageTagIsValid(tag)).toBe(ok));
});

describe('validUpMigration (corefile-migration ValidUpMigration)', () => {
  it.each([
    ['1.6.5', '1.6.6', undefined],
    ['1.6.5', '1.6.5', undefined],
    ['1.6.7', '1.8.0', undefined],
    ['1.6.6', '1.6.5', "cannot migrate up to '1.6.5' from '1.6.6'"],
    ['1.6.6', '99.99.99', "cannot migrate up to '99.99.99' from '1.6.6'"],
    ['1.8.1', '1.8.3', "start version '1.8.1' not supported"],
  ])('%s → %s', (from, to, err) => expect(validUpMigration(from, to)).toBe(err));
});
