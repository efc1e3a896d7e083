// `snapshot save|restore <file> [--data-dir DIR]`, as etcdctl's: shared by the standalone server's CLI and the
// manager's `npm run snapshot`, which differ only in where a data dir keeps its database and credentials.
import { resolve } from 'node:path';
import { restoreSnapshot, saveSnapshot, SnapshotError, type DataDirLayout } from './storage';

export interface SnapshotCommandOptions {
  /** The database and credential files of a data dir. */
  layout: (dataDir: string) => DataDirLayout;
  /** --data-dir when not given (resolved against the working directory). */
  defaultDataDir: string;
  /** How to invoke the command, for the usage line (e.g. "npm run snapshot --"). */
  invocation: string;
}

/** Runs the command; returns its one-line report. Throws with a one-line message on bad arguments or a refusal. */
export function snapshotCommand(argv: string[], opts: SnapshotCommandOptions): string {
  const usage = `usage: ${opts.invocation} save|restore <file> [--data-dir DIR] (default ${opts.defaultDataDir})`;
  const positional: string[] = [];
  let dataDir = opts.defaultDataDir;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--data-dir' || a.startsWith('--data-dir=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!v) throw new SnapshotError(`--data-dir needs a value; ${usage}`);
      dataDir = v;
    } else if (a.startsWith('-')) throw new SnapshotError(`unknown flag ${a}; ${usage}`);
    else positional.push(a);
  }
  const [verb, file, ...rest] = positional;
  if ((verb !== 'save' && verb !== 'restore') || !file || rest.length > 0) throw new SnapshotError(usage);
  const layout = opts.layout(resolve(dataDir));
  const path = resolve(file);
  if (verb === 'save') {
    const s = saveSnapshot(layout, path);
    return `saved ${path}: revision ${s.revision}, ${s.objects} objects, ${s.files.join(' and ') || 'no credential files'} (from ${layout.database})`;
  }
  const s = restoreSnapshot(layout, path);
  const parts = [`restored ${layout.database} from ${path}: revision ${s.revision}, ${s.objects} objects`];
  if (s.files.length) parts.push(`wrote ${s.files.join(' and ')}`);
  if (s.kept?.length) parts.push(`kept the data dir's ${s.kept.join(' and ')}`);
  if (s.previous) parts.push(`the replaced database is ${s.previous}`);
  return parts.join('; ');
}
