// url.ParseRequestURI cases of go1.26 src/net/url/url_test.go (parseRequestURLTests) and net.ParseCIDR cases.
import { parseCIDRError, parseRequestURI } from './go-net';

const valid = (u: string) => {
  try {
    parseRequestURI(u);
    return true;
  } catch {
    return false;
  }
};

describe('parseRequestURI (url.ParseRequestURI)', () => {
  it.each<[string, boolean]>([
    ['http://foo.com', true],
    ['http://foo.com/', true],
    ['http://foo.com/path', true],
    ['/', true],
    ['//not.a.user@not.a.host/just/a/path', true],
    ['//not.a.user@%66%6f%6f.com/just/a/path/also', true],
    ['*', true],
    ['http://192.168.0.1/', true],
    ['http://192.168.0.1:8080/', true],
    ['http://[fe80::1]/', true],
    ['http://[fe80::1]:8080/', true],
    ['http://[fe80::1%25en0]/', true],
    ['http://[fe80::1%25en0]:8080/', true],
    ['http://[fe80::1%25%65%6e%301-._~]/', true],
    ['http://[fe80::1%25%65%6e%301-._~]:8080/', true],
    ['foo.html', false],
    ['../dir/', false],
    [' http://foo.com', false],
    ['http://192.168.0.%31/', false],
    ['http://192.168.0.%31:8080/', false],
    ['http://[fe80::%31]/', false],
    ['http://[fe80::%31]:8080/', false],
    ['http://[fe80::%31%25en0]/', false],
    ['http://[fe80::%31%25en0]:8080/', false],
    ['http://[fe80::1%en0]/', false],
    ['http://[fe80::1%en0]:8080/', false],
    ['https://[1:2:3:4:5:6:7:8]', true],
    ['https://[2001:db8::a:b:c:d]', true],
    ['https://[fe80::1%25eth0]', true],
    ['https://[fe80::abc:def%254]', true],
    ['https://[2001:db8::1]/path', true],
    ['https://[fe80::1%25eth0]/path?query=1', true],
    ['https://[::ffff:192.0.2.1]', true],
    ['https://[:1] ', false],
    ['https://[1:2:3:4:5:6:7:8:9]', false],
    ['https://[1::1::1]', false],
    ['https://[1:2:3:]', false],
    ['https://[ffff::127.0.0.4000]', false],
    ['https://[0:0::test.com]:80', false],
    ['https://[2001:db8::test.com]', false],
    ['https://[test.com]', false],
    ['https://1:2:3:4:5:6:7:8', false],
    ['https://1:2:3:4:5:6:7:8:80', false],
    ['https://example.com:80:', false],
  ])('%j valid=%s', (u, want) => expect(valid(u)).toBe(want));

  it('returns the scheme, lower-cased, and the host', () => {
    expect(parseRequestURI('HTTP://example.com:8443/x?y')).toMatchObject({
      scheme: 'http',
      host: 'example.com:8443',
      path: '/x',
    });
    expect(parseRequestURI('unknown://extension-address.com').scheme).toBe('unknown');
  });

  it.each([
    ['https//extension-address.com', 'parse "https//extension-address.com": invalid URI for request'],
    ['', 'parse "": empty url'],
    [':foo', 'parse ":foo": missing protocol scheme'],
    ['https://a b.com', 'parse "https://a b.com": invalid character " " in host name'],
    ['https://example.com:80:', 'parse "https://example.com:80:": invalid port ":80:" after host'],
    ['https://x.com/%zz', 'parse "https://x.com/%zz": invalid URL escape "%zz"'],
    ['https://a\u0001', 'parse "https://a\\x01": net/url: invalid control character in URL'],
    ['https://a\n', 'parse "https://a\\n": net/url: invalid control character in URL'],
    ['https://a\u007f', 'parse "https://a\\x7f": net/url: invalid control character in URL'],
    ['https://x.com/a\\u0001%zz', 'parse "https://x.com/a\\\\u0001%zz": invalid URL escape "%zz"'],
    ['https://a{b@x.com', 'parse "https://a{b@x.com": net/url: invalid userinfo'],
  ])('words the error for %j as Go', (u, msg) => expect(() => parseRequestURI(u)).toThrow(msg));
});

describe('parseCIDRError (net.ParseCIDR)', () => {
  it.each([
    '10.10.10.10/24',
    '0.0.0.0/0',
    '192.168.0.0/32',
    '2004::1234:abcd:ffff:c0a8:101/64',
    '::/0',
    '::ffff:10.0.0.1/128',
    '10.0.0.0/024',
  ])('accepts %j', (c) => expect(parseCIDRError(c)).toBeUndefined());
  it.each([
    '10.10.10.10',
    '10.10.10.10/33',
    '10.10.10/24',
    '010.10.10.10/24',
    '10.10.10.10/-1',
    '10.10.10.10/',
    '::1/129',
    'fe80::1%eth0/64',
    'garbage/8',
    '',
  ])('rejects %j as "invalid CIDR address"', (c) => expect(parseCIDRError(c)).toBe(`invalid CIDR address: ${c}`));
});
