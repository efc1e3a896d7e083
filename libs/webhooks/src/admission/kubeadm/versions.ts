// Semantic versions as the kubeadm webhooks read them: github.com/blang/semver/v4 Parse and ParseTolerant (with its
// error messages, which upstream wraps into field errors), util/version ParseTolerantImageTag and Compare
// (WithoutPreReleases), util/container ImageTagIsValid. Parsed versions are `semver` SemVer objects.
import { SemVer } from 'semver';

export type ParseResult = { version: SemVer; error?: undefined } | { version?: undefined; error: string };

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const MAX_UINT64 = 18446744073709551615n;
const hasLeadingZeroes = (s: string) => s.length > 1 && s[0] === '0';
/** Go's %q for the ASCII text a version holds. */
const q = (s: string) => JSON.stringify(s);

/** strconv.ParseUint(s, 10, 64)'s errors for a string of digits. */
function parseUintError(s: string): string | undefined {
  if (s === '') return `strconv.ParseUint: parsing ${q(s)}: invalid syntax`;
  if (BigInt(s) > MAX_UINT64) return `strconv.ParseUint: parsing ${q(s)}: value out of range`;
  return undefined;
}

function numberPart(s: string, what: 'major' | 'minor' | 'patch'): string | undefined {
  const title = what[0].toUpperCase() + what.slice(1);
  if (!NUMBERS.test(s)) return `Invalid character(s) found in ${what} number ${q(s)}`;
  if (hasLeadingZeroes(s)) return `${title} number must not contain leading zeroes ${q(s)}`;
  return parseUintError(s);
}

/** blang semver.Parse: strict `major.minor.patch[-pre][+build]`, no "v", no spaces. */
export function parseSemver(s: string): ParseResult {
  if (s.length === 0) return { error: 'Version string empty' };
  const parts = splitN3(s);
  if (parts.length !== 3) return { error: 'No Major.Minor.Patch elements found' };
  let err = numberPart(parts[0], 'major') ?? numberPart(parts[1], 'minor');
  if (err) return { error: err };
  let patch = parts[2];
  let build: string[] = [];
  let pre: string[] = [];
  const b = patch.indexOf('+');
  if (b >= 0) {
    build = patch.slice(b + 1).split('.');
    patch = patch.slice(0, b);
  }
  const p = patch.indexOf('-');
  if (p >= 0) {
    pre = patch.slice(p + 1).split('.');
    patch = patch.slice(0, p);
  }
  err = numberPart(patch, 'patch');
  if (err) return { error: err };
  for (const id of pre) {
    if (id.length === 0) return { error: 'Prerelease is empty' };
    if (NUMBERS.test(id)) {
      if (hasLeadingZeroes(id)) return { error: `Numeric PreRelease version must not contain leading zeroes ${q(id)}` };
      const e = parseUintError(id);
      if (e) return { error: e };
    } else if (!ALPHANUM.test(id)) return { error: `Invalid character(s) found in prerelease ${q(id)}` };
  }
  for (const id of build) {
    if (id.length === 0) return { error: 'Build meta data is empty' };
    if (!ALPHANUM.test(id)) return { error: `Invalid character(s) found in build meta data ${q(id)}` };
  }
  try {
    return { version: new SemVer(s) };
  } catch (e) {
    // Numbers beyond JavaScript's safe integers: valid for blang, not representable here.
    return { error: (e as Error).message };
  }
}

/** strings.SplitN(s, ".", 3). */
function splitN3(s: string): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < 2) {
    const i = rest.indexOf('.');
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + 1);
  }
  return [...out, rest];
}

/** blang semver.ParseTolerant: trims spaces and one leading "v", drops leading zeros, fills a missing minor/patch. */
export function parseTolerant(input: string): ParseResult {
  let s = input.trim();
  if (s.startsWith('v')) s = s.slice(1);
  const parts = splitN3(s).map((part) => {
    if (part.length <= 1) return part;
    const t = part.replace(/^0+/, '');
    return t.length === 0 || !/^[0-9]/.test(t) ? `0${t}` : t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]))
      return { error: 'Short version cannot contain PreRelease/Build meta data' };
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

/** util/version ParseTolerantImageTag: image tags spell build metadata with "_" instead of "+". */
export const parseTolerantImageTag = (tag: string): ParseResult => parseTolerant(tag.replace(/_/g, '+'));

/** util/version Compare(a, b, WithoutPreReleases()): major, minor, patch only (build metadata never counts). */
export const compareWithoutPreReleases = (a: SemVer, b: SemVer): number => a.compareMain(b);

/** blang Version.String(): `1.2.3-pre+build` (SemVer.format() drops the build). */
export const versionString = (v: SemVer): string =>
  `${v.major}.${v.minor}.${v.patch}${v.prerelease.length ? `-${v.prerelease.join('.')}` : ''}${
    v.build.length ? `+${v.build.join('.')}` : ''
  }`;

/** util/version MajorMinorPatch(v).String(). */
export const majorMinorPatch = (v: SemVer): string => `${v.major}.${v.minor}.${v.patch}`;

/** util/container ImageTagIsValid: only letters, digits, '-', '_' and '.' (the OCI tag alphabet). */
export const imageTagIsValid = (tag: string): boolean => !/[^-a-zA-Z0-9_.]/.test(tag);
