// `npm run demo -- [flags]`: the in-place updates demo (see USAGE in args.ts and docs/demo.md).
// Exit codes: 0 demo OK, 1 wrong outcome / timeout / start-up failure, 2 bad arguments.
import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@capi/controller-runtime';
import { ControllerUnavailableError } from '@capi/manager';
import { USAGE, UsageError, parseDemoArgs, type DemoArgs } from './args';
import { FAST_TIMINGS, startEmbeddedManager, type EmbeddedManager } from './embedded';
import { DemoError, DemoRun } from './flow';

async function connect(
  args: DemoArgs,
): Promise<{ client: KubeClient | EmbeddedManager['client']; stop: () => Promise<void> }> {
  if (args.embedded) {
    process.stdout.write('starting the embedded manager in-process...\n');
    const m = await startEmbeddedManager({ provider: args.fast ? FAST_TIMINGS : undefined });
    return { client: m.client, stop: () => m.stop() };
  }
  if (!existsSync(args.kubeconfig)) {
    throw new DemoError(
      `no kubeconfig at ${args.kubeconfig}: start the manager first (npm start, in another terminal), pass --kubeconfig, or run with --embedded`,
    );
  }
  const kc = new KubeConfig();
  kc.loadFromString(readFileSync(args.kubeconfig, 'utf8'));
  const client = new KubeClient(kc);
  return { client, stop: async () => client.close() };
}

export async function main(argv: string[]): Promise<number> {
  let args: DemoArgs | undefined;
  try {
    args = parseDemoArgs(argv, process.cwd());
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  if (!args) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  let conn;
  try {
    conn = await connect(args);
  } catch (e) {
    if (e instanceof DemoError || e instanceof ControllerUnavailableError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const run = new DemoRun({
    client: conn.client,
    spec: { cluster: args.cluster, namespace: args.namespace },
    phaseTimeoutMs: args.phaseTimeoutMs,
    keep: args.keep,
  });
  const interrupt = () => {
    process.stderr.write('interrupted\n');
    run.stop();
    void conn.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  try {
    const result = await run.run();
    return result.ok ? 0 : 1;
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 1;
  } finally {
    process.off('SIGINT', interrupt);
    await conn.stop();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: Error) => {
      process.stderr.write(`error: ${e?.stack ?? String(e)}\n`);
      process.exit(1);
    },
  );
}
