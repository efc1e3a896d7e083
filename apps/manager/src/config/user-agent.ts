// The manager's User-Agent, built as cluster-api's remote.DefaultClusterAPIUserAgent builds upstream managers' ones
// (controllers/remote/cluster.go: "<command>/<version> <source> (<os>/<arch>) cluster.x-k8s.io/<commit>"). Its first
// word names the field manager of writes sent without ?fieldManager= (merge patches, updates): "manager", as in
// upstream's images; without a User-Agent kube-apiserver recorded them as "unknown".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** upstream's controllerName of the core manager, the source named in the User-Agent. */
export const CONTROLLER_NAME = 'cluster-api-controller-manager';

/** Node's process.arch in Go's GOARCH spelling. */
const GOARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };

function managerVersion(): string {
  try {
    const version = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version?: string })
      .version;
    return version ? `v${version}` : 'unknown';
  } catch {
    return 'unknown'; // a build without the package file, as upstream's unstamped builds
  }
}

export function managerUserAgent(sourceName = CONTROLLER_NAME): string {
  return `manager/${managerVersion()} ${sourceName} (${process.platform}/${GOARCH[process.arch] ?? process.arch}) cluster.x-k8s.io/unknown`;
}
