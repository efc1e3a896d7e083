// `npm run snapshot -- save|restore <file> [--data-dir .capi]`: etcdctl-style snapshots of the embedded API server's
// data in the manager's data dir layout (embeddedPaths). Save works while the manager runs; restore refuses then.
import { SnapshotError, snapshotCommand } from '@capi/apiserver';
import { DEFAULT_DATA_DIR } from './config/config';
import { embeddedPaths } from './embedded/embedded';

export function runSnapshot(argv: string[]): string {
  return snapshotCommand(argv, {
    layout: (dataDir) => {
      const paths = embeddedPaths(dataDir);
      return { database: paths.database, credentialsDir: paths.serverState };
    },
    defaultDataDir: DEFAULT_DATA_DIR,
    invocation: 'npm run snapshot --',
  });
}

if (require.main === module) {
  try {
    process.stdout.write(`${runSnapshot(process.argv.slice(2))}\n`);
  } catch (e) {
    const named = e instanceof SnapshotError;
    process.stderr.write(`error: ${named ? (e as Error).message : ((e as Error)?.stack ?? String(e))}\n`);
    process.exit(1);
  }
}
