// Standalone API server: node -r @swc-node/register libs/apiserver/src/main.ts --data-dir DIR [--port N] [--kubeconfig-out PATH]
import { join, resolve } from 'node:path';
import { ApiServer } from './server/apiserver';

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
  const args = parseArgs(process.argv.slice(2));
  const server = new ApiServer({
    storage: args.memory ? { type: 'memory' } : { type: 'sqlite', path: join(args.dataDir, 'state.db') },
    dataDir: args.dataDir,
    port: args.port,
    host: args.host,
    tls: args.tls,
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
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}
