import {
  checkPorts,
  chooseProtocol,
  decodeFrame,
  encodeFrame,
  parsePorts,
  portPrefix,
  V4_BASE64_PROTOCOL,
  V4_BINARY_PROTOCOL,
} from './portforward-wire';
import { StatusError } from './status';

const message = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return `${(e as StatusError).code} ${(e as StatusError).message}`;
  }
  throw new Error('no error');
};

describe('parsePorts (kube-apiserver decoding PodPortForwardOptions)', () => {
  it('takes repeated and comma-separated values', () => {
    expect(parsePorts(['2379'])).toEqual([2379]);
    expect(parsePorts(['80,443', '8080'])).toEqual([80, 443, 8080]);
    expect(parsePorts([])).toEqual([]);
    expect(parsePorts(['0'])).toEqual([0]); // kube-apiserver lets 0 through; kubelet refuses it
  });
  it.each([
    [['abc'], '400 cannot convert to []int32: strconv.ParseUint: parsing "abc": invalid syntax'],
    [['65536'], '400 cannot convert to []int32: strconv.ParseUint: parsing "65536": value out of range'],
    [[''], '400 cannot convert to []int32: strconv.ParseUint: parsing "": invalid syntax'],
    [
      ['x,1,-2'],
      '400 [cannot convert to []int32: strconv.ParseUint: parsing "x": invalid syntax, cannot convert to []int32: strconv.ParseUint: parsing "-2": invalid syntax]',
    ],
  ])('%j → %s', (values, expected) => {
    expect(message(() => parsePorts(values))).toBe(expected);
  });
});

describe("checkPorts (kubelet's NewV4Options)", () => {
  it('needs a port, each > 0', () => {
    expect(message(() => checkPorts([]))).toBe('400 query parameter "ports" is required');
    expect(message(() => checkPorts([80, 0]))).toBe('400 port "0" must be > 0');
    expect(() => checkPorts([1, 65535])).not.toThrow();
  });
});

describe('chooseProtocol (wsstream handshake: the client order)', () => {
  it.each([
    [[], ''],
    [['v5.channel.k8s.io', 'v4.channel.k8s.io', 'channel.k8s.io'], V4_BINARY_PROTOCOL],
    [[V4_BASE64_PROTOCOL, V4_BINARY_PROTOCOL], V4_BASE64_PROTOCOL],
    [['SPDY/3.1+portforward.k8s.io'], undefined],
    [['channel.k8s.io'], undefined],
  ])('%j → %j', (offered, chosen) => {
    expect(chooseProtocol(offered)).toBe(chosen);
  });
});

describe('frames', () => {
  it('binary: the channel byte, then the payload', () => {
    const f = encodeFrame(V4_BINARY_PROTOCOL, 1, Buffer.from('hi')) as Buffer;
    expect([...f]).toEqual([1, 104, 105]);
    expect(decodeFrame(V4_BINARY_PROTOCOL, f, true)).toEqual({ channel: 1, data: Buffer.from('hi') });
    expect(encodeFrame('', 0, Buffer.alloc(0))).toEqual(Buffer.from([0]));
  });
  it('base64: the channel digit, then base64 text', () => {
    expect(encodeFrame(V4_BASE64_PROTOCOL, 1, Buffer.from('hi'))).toBe('1aGk=');
    expect(decodeFrame(V4_BASE64_PROTOCOL, Buffer.from('0aGk='), false)).toEqual({
      channel: 0,
      data: Buffer.from('hi'),
    });
  });
  it('an empty message has no channel', () => {
    expect(decodeFrame(V4_BINARY_PROTOCOL, Buffer.alloc(0), true)).toBeUndefined();
  });
  it('the port prefix is 2 bytes little-endian', () => {
    expect([...portPrefix(2379)]).toEqual([0x4b, 0x09]);
  });
});
