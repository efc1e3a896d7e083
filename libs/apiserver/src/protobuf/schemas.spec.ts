// The protobuf schemas are .proto files at their upstream package paths under proto/ (codec.ts loads them).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Root } from 'protobufjs';
import { messageType } from './codec';

const protoDir = join(__dirname, 'proto');
const onDisk = (readdirSync(protoDir, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.proto'))
  .map((f) => join(protoDir, f))
  .sort();

it('loads every .proto file under proto/', () => {
  const root = messageType('k8s.io.api.core.v1.Event').root as Root;
  expect([...root.files].sort()).toEqual(onDisk);
  expect(onDisk).toHaveLength(9);
});

it.each(onDisk.map((f) => [relative(protoDir, f)]))('%s is upstream generated.proto of its package', (file) => {
  expect(file.endsWith('/generated.proto')).toBe(true);
  // k8s.io/apiextensions-apiserver/pkg/... is package k8s.io.apiextensions_apiserver.pkg...., as upstream declares it.
  const pkg = file
    .replace(/\/generated\.proto$/, '')
    .replace(/\//g, '.')
    .replace(/-/g, '_');
  expect(readFileSync(join(protoDir, file), 'utf8')).toMatch(
    new RegExp(`^package ${pkg.replace(/\./g, '\\.')};$`, 'm'),
  );
});
