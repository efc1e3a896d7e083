// Writes the clusterctl provider releases (components.ts) as a clusterctl local repository:
// <out>/<provider label>/<version>/{<components file>,metadata.yaml}, rendered from deploy/ with `kubectl kustomize`.
//
//   npm run release:components [-- --out=<dir>] [-- --version=vX.Y.Z]   (default dist/clusterctl, v<package.json>)
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { componentsYaml, metadataYaml, parseObjects, providerReleases, type ProviderType } from './components';

const root = resolve(__dirname, '../..');

export interface WrittenRelease {
  name: string;
  type: ProviderType;
  label: string;
  /** The components file's absolute path: clusterctl's `providers[].url` is file://<this>. */
  components: string;
}

async function kustomize(dir: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)('kubectl', ['kustomize', join(root, dir)], { maxBuffer: 64 << 20 });
    return stdout;
  } catch (e) {
    throw new Error(
      `kubectl kustomize ${dir} failed: ${(e as { stderr?: string }).stderr?.trim() || (e as Error).message}`,
    );
  }
}

/** The repository's version as a provider version: package.json's, v-prefixed. */
export function defaultVersion(): string {
  return `v${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}`;
}

export async function writeReleases(outDir: string, version = defaultVersion()): Promise<WrittenRelease[]> {
  const metadata = metadataYaml(version);
  const releases = providerReleases(
    parseObjects(await kustomize('deploy')),
    parseObjects(await kustomize('deploy/inmemory')),
  );
  return releases.map((r) => {
    const dir = join(resolve(outDir), r.label, version);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'metadata.yaml'), metadata);
    writeFileSync(join(dir, r.file), componentsYaml(r.objects));
    return { name: r.name, type: r.type, label: r.label, components: join(dir, r.file) };
  });
}

if (require.main === module) {
  const arg = (name: string) =>
    process.argv
      .slice(2)
      .find((a) => a.startsWith(`--${name}=`))
      ?.slice(name.length + 3);
  writeReleases(arg('out') ?? join(root, 'dist', 'clusterctl'), arg('version')).then(
    (written) => {
      for (const w of written) console.log(`${w.type} ${w.name}: ${w.components}`);
    },
    (e) => {
      console.error(`error: ${(e as Error).message}`);
      process.exit(1);
    },
  );
}
