import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { KubeObject } from '@capi/apimachinery';
import { HOST_FILES_ANNOTATION } from '../api/constants';
import {
  bootstrapDataFiles,
  cloudInitFiles,
  decodeContent,
  fileDigest,
  HostFileError,
  hostFilesOf,
  withWrittenFiles,
  writeFiles,
} from './files';

const sha = (s: string | Buffer) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

describe('decodeContent (cloud-init cc_write_files encodings)', () => {
  const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
  it.each([
    ['plain text', undefined, 'hello', 'hello'],
    ['text/plain', 'text/plain', 'hello', 'hello'],
    ['base64', 'base64', b64('hello'), 'hello'],
    ['b64 (cloud-init alias)', 'b64', b64('hello'), 'hello'],
    ['gzip+base64', 'gzip+base64', b64(gzipSync('hello')), 'hello'],
    ['gz+b64, case and spaces ignored', ' GZ+B64 ', b64(gzipSync('hello')), 'hello'],
    ['gzip (raw bytes in the string)', 'gzip', gzipSync('hello').toString('binary'), 'hello'],
    ['an unknown encoding: written as it is', 'rot13', 'uryyb', 'uryyb'],
  ])('%s', (_name, encoding, content, want) => {
    expect(decodeContent({ path: '/f', encoding, content }).toString()).toBe(want);
  });

  it('fails, naming the file, when gzip content does not decompress', () => {
    expect(() => decodeContent({ path: '/f', encoding: 'gzip+base64', content: b64('not gzip') })).toThrow(
      /^file \/f: content is not gzip\+base64: /,
    );
    expect(() => decodeContent({ path: '/f', encoding: 'gzip+base64', content: b64('x') })).toThrow(HostFileError);
  });

  it('reads missing content as an empty file', () => {
    expect(decodeContent({ path: '/f' }).length).toBe(0);
  });
});

describe('writeFiles', () => {
  it('records each path with the sha256 of its content; a later entry replaces, append adds', () => {
    expect(
      writeFiles([
        { path: '/a', content: 'one' },
        { path: '/b', content: 'x' },
        { path: '/a', content: 'two' },
        { path: '/b', content: 'y', append: true },
        { path: '/c', content: 'z', append: true },
      ]),
    ).toEqual({ '/a': sha('two'), '/b': sha('xy'), '/c': sha('z') });
  });

  it('digests the decoded bytes', () => {
    expect(writeFiles([{ path: '/a', encoding: 'base64', content: Buffer.from('hi').toString('base64') }])).toEqual({
      '/a': sha('hi'),
    });
    expect(fileDigest('hi')).toBe(sha('hi'));
  });
});

describe('cloudInitFiles', () => {
  it('reads write_files of a cloud-config document (the in-memory bootstrap header included)', () => {
    const doc = '## template: jinja\n#cloud-config\nwrite_files:\n- path: /tmp/test\n  content: first\nruncmd: [x]\n';
    expect(cloudInitFiles(doc)).toEqual({ '/tmp/test': sha('first') });
  });

  it('has no files without write_files, or for an empty document', () => {
    expect(cloudInitFiles('#cloud-config\nruncmd: [x]\n')).toEqual({});
    expect(cloudInitFiles('#cloud-config\n')).toEqual({});
  });

  it.each([
    ['not YAML', 'write_files: [', /^bootstrap data is not a cloud-config document: /],
    ['not a mapping', '- a\n- b\n', 'bootstrap data is not a cloud-config document: not a mapping'],
    ['write_files not a list', 'write_files: x\n', 'cloud-config write_files is not a list'],
    ['an entry without path', 'write_files:\n- content: x\n', 'cloud-config write_files[0] has no path'],
    [
      'content not a string',
      'write_files:\n- path: /a\n  content: {a: 1}\n',
      /write_files\[0\] \(\/a\): content is not/,
    ],
  ])('rejects %s', (_name, doc, message) => {
    expect(() => cloudInitFiles(doc)).toThrow(message);
  });
});

describe('bootstrapDataFiles', () => {
  const secret = (data: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'm-0', namespace: 'ns' },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  });

  it('reads the cloud-config in key "value" (format cloud-config or none)', () => {
    const value = '#cloud-config\nwrite_files:\n- path: /a\n  content: x\n';
    expect(bootstrapDataFiles(secret({ value }), 'ns/m-0')).toEqual({ '/a': sha('x') });
    expect(bootstrapDataFiles(secret({ value, format: 'cloud-config' }), 'ns/m-0')).toEqual({ '/a': sha('x') });
  });

  it.each([
    ['a missing Secret', undefined, 'bootstrap data Secret ns/m-0 not found'],
    ['no value', secret({}), 'bootstrap data Secret ns/m-0 has no key "value"'],
    ['ignition', secret({ value: '{}', format: 'ignition' }), 'has format ignition: only cloud-config is simulated'],
    ['bad cloud-config', secret({ value: 'write_files: x' }), 'ns/m-0: cloud-config write_files is not a list'],
  ])('fails with a HostFileError for %s', (_name, s, message) => {
    expect(() => bootstrapDataFiles(s, 'ns/m-0')).toThrow(HostFileError);
    expect(() => bootstrapDataFiles(s, 'ns/m-0')).toThrow(message);
  });
});

describe('withWrittenFiles / hostFilesOf', () => {
  it('replaces written paths, keeps the others, sorted by path', () => {
    const merged = withWrittenFiles({ '/z': 'sha256:1', '/a': 'sha256:2' }, { '/a': 'sha256:3', '/m': 'sha256:4' });
    expect(Object.entries(merged)).toEqual([
      ['/a', 'sha256:3'],
      ['/m', 'sha256:4'],
      ['/z', 'sha256:1'],
    ]);
  });

  it('reads the Node annotation; unreadable or absent is empty', () => {
    const node = (value?: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n', annotations: value === undefined ? {} : { [HOST_FILES_ANNOTATION]: value } },
    });
    expect(hostFilesOf(node(JSON.stringify({ '/a': 'sha256:1', '/b': 2 })))).toEqual({ '/a': 'sha256:1' });
    expect(hostFilesOf(node('{nope'))).toEqual({});
    expect(hostFilesOf(node('[1]'))).toEqual({});
    expect(hostFilesOf(node())).toEqual({});
  });
});
