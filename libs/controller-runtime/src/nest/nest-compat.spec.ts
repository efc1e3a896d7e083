import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertNestCompatible, nestCompatibilityProblems, NestVersionError, type NestCopy } from './nest-compat';

const copy = (pkg: NestCopy['pkg'], version: string, path: string, usedBy: string): NestCopy => ({
  pkg,
  version,
  path,
  usedBy,
});

describe('NestJS compatibility check', () => {
  it('accepts one copy of the supported major shared by the app and the packages', () => {
    const shared = [
      copy('@nestjs/core', '11.2.10', '/app/node_modules/@nestjs/core', 'the @capi packages'),
      copy('@nestjs/core', '11.2.10', '/app/node_modules/@nestjs/core', 'the application'),
    ];
    expect(nestCompatibilityProblems(shared)).toEqual([]);
  });

  it('names a wrong major and a second copy', () => {
    const problems = nestCompatibilityProblems([
      copy(
        '@nestjs/core',
        '11.2.10',
        '/app/node_modules/@capi/manager/node_modules/@nestjs/core',
        'the @capi packages',
      ),
      copy('@nestjs/core', '10.4.15', '/app/node_modules/@nestjs/core', 'the application'),
    ]);
    expect(problems).toEqual([
      'the application: @nestjs/core 10.4.15 (/app/node_modules/@nestjs/core), but the @capi packages need @nestjs/core 11.x (peer dependency ^11.0.0)',
      'two copies of @nestjs/core: 11.2.10 at /app/node_modules/@capi/manager/node_modules/@nestjs/core (the @capi packages) and 10.4.15 at /app/node_modules/@nestjs/core (the application); install a single @nestjs/core 11.x (npm dedupe)',
    ]);
  });

  it('at start-up: an application that resolves its own @nestjs/core 10 gets a NestVersionError naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nest-compat-'));
    try {
      mkdirSync(join(dir, 'node_modules/@nestjs/core'), { recursive: true });
      writeFileSync(
        join(dir, 'node_modules/@nestjs/core/package.json'),
        JSON.stringify({ name: '@nestjs/core', version: '10.4.15' }),
      );
      writeFileSync(join(dir, 'main.js'), '');
      expect(() => assertNestCompatible(join(dir, 'main.js'))).toThrow(NestVersionError);
      expect(() => assertNestCompatible(join(dir, 'main.js'))).toThrow(
        /the application: @nestjs\/core 10\.4\.15 \(.*nest-compat-.*\), but the @capi packages need @nestjs\/core 11\.x/,
      );
      expect(() => assertNestCompatible(__filename)).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
