// Standalone API server: node -r @swc-node/register libs/apiserver/src/main.ts --data-dir DIR [--port N] [--kubeconfig-out PATH]
// Snapshots of its data dir: ... main.ts snapshot save|restore <file> [--data-dir DIR]
import { join, resolve } from 'node:path';
import { ApiServer } from './server/apiserver';
import { snapshotCommand } from './snapshot-command';
import { SnapshotError, StorageDamagedError } from './storage';

const INVOCATION = 'node -r @swc-node/register libs/apiserver/src/main.ts snapshot';

/** The standalone server's data dir: the database, token and CA side by side. */
export const standaloneLayout = (dataDir: string) => ({ database: join(dataDir, 'state.db'), credentialsDir: dataDir });

export interface MainArgs {
  dataDir: string;
  port: number;
  kubeconfigOut: string;
  memory: boolean;
  tls: boolean;
  host: string;
}

export function parseArgs(argv: string[]): MainArgs {
  const args: MainArgs = {
    dataDir: resolve('.apiserver'),
    port: 0,
    kubeconfigOut: '',
    memory: false,
    tls: true,
    host: '127.0.0.1',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--data-dir':
        args.dataDir = resolve(value());
        break;
      case '--port':
        args.port = Number(value());
        break;
      case '--kubeconfig-out':
        args.kubeconfigOut = resolve(value());
        break;
      case '--host':
        args.host = value();
        break;
      case '--memory':
        args.memory = true;
        break;
      case '--no-tls':
        args.tls = false;
        break;
      default:
        throw new Error(`unknown flag ${a}`);
    }
  }
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535)
    throw new Error(`invalid --port ${args.port}`);
  args.kubeconfigOut ||= join(args.dataDir, 'kubeconfig');
  return args;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === 'snapshot') {
    const report = snapshotCommand(argv.slice(1), {
      layout: standaloneLayout,
      defaultDataDir: '.apiserver',
      invocation: INVOCATION,
    });
    process.stdout.write(`${report}\n`);
    return;
  }
  const args = parseArgs(argv);
  const server = new ApiServer({
    storage: args.memory ? { type: 'memory' } : { type: 'sqlite', path: standaloneLayout(args.dataDir).database },
    dataDir: args.dataDir,
    port: args.port,
    host: args.host,
    tls: args.tls,
    recoveryHint: `restore a snapshot with \`${INVOCATION} restore <file> --data-dir ${args.dataDir}\``,
    logger: { info: (m) => process.stderr.write(`${m}\n`), error: (m) => process.stderr.write(`ERROR ${m}\n`) },
  });
  const started = await server.start();
  await server.writeKubeconfig(args.kubeconfigOut);
  process.stdout.write(`${JSON.stringify({ kubeconfig: args.kubeconfigOut, url: started.url })}\n`);
  const shutdown = () => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

if (require.main === module) {
  main().catch((e) => {
    // A refusal (damaged database, snapshot errors) says it all in one line; anything else gets its stack.
    const named = e instanceof StorageDamagedError || e instanceof SnapshotError || !(e as Error)?.stack;
    process.stderr.write(`error: ${named ? (e as Error).message : (e as Error).stack}\n`);
    process.exit(1);
  });
}
