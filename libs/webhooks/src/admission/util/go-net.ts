// Go's net/url.ParseRequestURI and net.ParseCIDR, as far as upstream's webhooks use them to accept or reject a value
// (core/webhooks/admission/extensionconfig.go, cluster.go validateCIDRBlocks), with Go's error text so a denial
// reads as upstream's. Ported from go1.26 src/net/url/url.go (parse, getScheme, parseAuthority, parseHost, unescape)
// and src/net/ip.go (ParseCIDR).
import { isIPv4, isIPv6 } from 'node:net';

/** The parts of a url.URL the webhooks look at. */
export interface GoURL {
  scheme: string;
  host: string;
  path: string;
  opaque: string;
}

const GO_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** strconv.Quote for the texts here: JSON's quoting, but control characters as Go escapes them (\x01, \n, \x7f). */
export function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\\\|\\u00([01][0-9a-f])|\x7f/g, (m: string, hex: string | undefined) => {
    if (m === '\\\\') return m;
    const c = hex ? String.fromCharCode(parseInt(hex, 16)) : '\x7f';
    return GO_ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** A url.Error: `parse "<url>": <err>` (Error() is `%s %q: %s`). */
export class GoURLError extends Error {
  constructor(
    readonly url: string,
    readonly err: string,
  ) {
    super(`parse ${goQuote(url)}: ${err}`);
    this.name = 'GoURLError';
  }
}

class ParseFailure extends Error {}

const isAlpha = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isDigit = (c: string) => c >= '0' && c <= '9';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** Characters a host (and an IPv6 zone) may hold unescaped (go's encoding table for encodeHost/encodeZone). */
function hostByteAllowed(c: string): boolean {
  return isAlpha(c) || isDigit(c) || '-_.~!$&\'()*+,;=:[]<>"'.includes(c);
}

function escapeError(s: string): ParseFailure {
  return new ParseFailure(`invalid URL escape ${goQuote(s)}`);
}

/** url.unescape's validation (the decoded value is not needed here). */
function checkUnescape(s: string, mode: 'host' | 'zone' | 'other'): void {
  for (let i = 0; i < s.length;) {
    const c = s[i];
    if (c === '%') {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) throw escapeError(s.slice(i, i + 3));
      const triple = s.slice(i, i + 3);
      // RFC 3986: in a host, %-encoding is only for non-ASCII bytes; RFC 6874 allows %25 for a zone.
      if (mode === 'host' && parseInt(s[i + 1], 16) < 8 && triple !== '%25') throw escapeError(triple);
      if (mode === 'zone') {
        const v = String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16));
        if (triple !== '%25' && v !== ' ' && !hostByteAllowed(v)) throw escapeError(triple);
      }
      i += 3;
    } else {
      if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && !hostByteAllowed(c))
        throw new ParseFailure(`invalid character ${goQuote(c)} in host name`);
      i++;
    }
  }
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (isAlpha(c)) continue;
    if (isDigit(c) || c === '+' || c === '-' || c === '.') {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new ParseFailure('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

/** ":" followed by digits only, or nothing. */
const validOptionalPort = (port: string) => port === '' || /^:[0-9]*$/.test(port);

function parseHost(scheme: string, host: string): string {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new ParseFailure('invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new ParseFailure("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new ParseFailure(`invalid port ${goQuote(colonPort)} after host`);
    const hostname = host.slice(1, close);
    const zone = hostname.indexOf('%25');
    checkUnescape(zone >= 0 ? hostname.slice(0, zone) : hostname, 'host');
    if (zone >= 0) checkUnescape(hostname.slice(zone), 'zone');
    const addr = zone >= 0 ? hostname.slice(0, zone) : hostname;
    // Only an IPv6 address may be bracketed (netip.ParseAddr, then Is4 rejected).
    if (isIPv4(addr)) throw new ParseFailure('invalid IP-literal');
    if (!isIPv6(addr)) throw new ParseFailure(`invalid host: ParseAddr(${JSON.stringify(addr)}): unable to parse IP`);
    return host;
  }
  const first = host.indexOf(':');
  if (first !== -1) {
    // Go 1.26 (urlstrictcolons=1): http and https hosts may hold one colon only; other schemes use the last one.
    const i = scheme === 'http' || scheme === 'https' ? first : host.lastIndexOf(':');
    const colonPort = host.slice(i);
    if (!validOptionalPort(colonPort)) throw new ParseFailure(`invalid port ${goQuote(colonPort)} after host`);
  }
  checkUnescape(host, 'host');
  return host;
}

/** RFC 3986 userinfo characters (url.validUserinfo, which also tolerates '@'). */
const validUserinfo = (s: string) => /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);

function parseAuthority(scheme: string, authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    if (!validUserinfo(userinfo)) throw new ParseFailure('net/url: invalid userinfo');
    for (const part of userinfo.includes(':') ? userinfo.split(':', 2) : [userinfo]) checkUnescape(part, 'other');
  }
  return host;
}

function parse(raw: string): GoURL {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new ParseFailure('net/url: invalid control character in URL');
  if (raw === '') throw new ParseFailure('empty url');
  if (raw === '*') return { scheme: '', host: '', path: '*', opaque: '' };
  let [scheme, rest] = getScheme(raw);
  scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else if (rest.includes('?')) rest = rest.slice(0, rest.indexOf('?'));
  if (!rest.startsWith('/')) {
    // Rootless paths with a scheme are opaque (RFC 3986); a request URI needs a scheme or an absolute path.
    if (scheme !== '') return { scheme, host: '', path: '', opaque: rest };
    throw new ParseFailure('invalid URI for request');
  }
  let host = '';
  if (scheme !== '' && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    host = parseAuthority(scheme, authority);
  }
  checkUnescape(rest, 'other');
  return { scheme, host, path: rest, opaque: '' };
}

/** url.ParseRequestURI: an absolute URI or an absolute path; throws GoURLError with Go's message. */
export function parseRequestURI(raw: string): GoURL {
  try {
    return parse(raw);
  } catch (e) {
    if (e instanceof ParseFailure) throw new GoURLError(raw, e.message);
    throw e;
  }
}

/**
 * net.ParseCIDR's verdict: undefined when `s` is an IP address (no zone) and a prefix length that fits it, else Go's
 * error text `invalid CIDR address: <s>`.
 */
export function parseCIDRError(s: string): string | undefined {
  const err = `invalid CIDR address: ${s}`;
  const slash = s.indexOf('/');
  if (slash < 0) return err;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  const bits = isIPv4(addr) ? 32 : isIPv6(addr) && !addr.includes('%') ? 128 : 0;
  if (!bits) return err;
  // dtoi: decimal digits only (leading zeros allowed), at most 0xFFFFFF.
  if (!/^[0-9]+$/.test(mask) || Number(mask) > bits) return err;
  return undefined;
}
