// Runs one of the repo's node scripts (a build.mjs) as a user would, for the specs of its bad days: exit status,
// stdout, and the `error:` lines of stderr.
import { spawnSync } from 'node:child_process';

export interface ScriptRun {
  status: number | null;
  stdout: string;
  errorLines: string[];
}

export function runNodeScript(script: string, env: Record<string, string>, args: string[] = []): ScriptRun {
  const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, errorLines: r.stderr.split('\n').filter((l) => l.startsWith('error:')) };
}
