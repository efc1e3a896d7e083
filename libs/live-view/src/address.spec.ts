import { isLoopback, parseLiveViewAddress } from './address';

describe('parseLiveViewAddress', () => {
  it('is off when empty', () => expect(parseLiveViewAddress('')).toBeUndefined());

  it('binds loopback for :port', () =>
    expect(parseLiveViewAddress(':8090')).toEqual({ host: '127.0.0.1', port: 8090, loopback: true }));

  it.each([
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0, loopback: true }],
    ['localhost:8090', { host: 'localhost', port: 8090, loopback: true }],
    ['[::1]:8090', { host: '::1', port: 8090, loopback: true }],
    ['0.0.0.0:8090', { host: '0.0.0.0', port: 8090, loopback: false }],
    ['10.1.2.3:80', { host: '10.1.2.3', port: 80, loopback: false }],
  ])('uses the host given in %s', (value, want) => expect(parseLiveViewAddress(value)).toEqual(want));

  it.each(['8090', 'host', ':', ':70000', 'a b:1', '[zz]:1', '[127.0.0.1]:1'])('rejects %j', (value) =>
    expect(() => parseLiveViewAddress(value)).toThrow(/must be host:port|not an IPv6/),
  );
});

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.0.1', true],
    ['::1', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['example.com', false],
  ])('%s → %s', (host, want) => expect(isLoopback(host)).toBe(want));
});
