// `capi-inplace` entry: parse, connect, run one command. Exit codes: 0 success, 1 error (one `error:` line on
// stderr; a stalled / timed-out rollout adds its blocking conditions after it), 2 bad command line (with the usage).
import { parseCliArgs, USAGE, UsageError } from './args';
import { describeCluster } from './describe';
import { CliError, connect, type Connection } from './kube';
import { rolloutPlan } from './rollout-plan';
import { rolloutStatus } from './rollout-status';

export interface CliIo {
  stdout: { write(s: string): void; isTTY?: boolean };
  stderr: { write(s: string): void };
  env: NodeJS.ProcessEnv;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let args;
  try {
    args = parseCliArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr.write(`error: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let conn: Connection | undefined;
  try {
    conn = connect(args.global, io.env);
    const cmd = args.cmd;
    if (cmd.command === 'describe-cluster') {
      io.stdout.write(`${await describeCluster(conn, cmd.name, cmd.output, new Date())}\n`);
      return 0;
    }
    if (cmd.command === 'rollout-plan') {
      io.stdout.write(`${await rolloutPlan(conn, cmd.file)}\n`);
      return 0;
    }
    return await rolloutStatus(conn, { ...cmd, out: io.stdout, err: io.stderr });
  } catch (e) {
    const message = e instanceof CliError ? e.message : `${(e as Error)?.message ?? String(e)}`;
    io.stderr.write(`error: ${message.split('\n')[0]}\n`);
    return 1;
  } finally {
    conn?.close();
  }
}
