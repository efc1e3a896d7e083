// `node -r @swc-node/register tools/demo/render-template.ts FILE [--list-variables]`: renders a cluster template
// (examples/clusters/*.yaml) to stdout as `clusterctl generate cluster --from FILE` would, the variables taken from
// the environment; for piping to `kubectl apply -f -` without clusterctl. Exit codes: 0, 1 (a missing variable, a
// bad template, an unreadable file), 2 (bad arguments).
import { readFileSync } from 'node:fs';
import { renderTemplate, templateVariables } from './envsubst';

export const RENDER_USAGE = `usage: node -r @swc-node/register tools/demo/render-template.ts FILE [--list-variables]
Renders FILE with clusterctl's variable syntax (\${VAR}, \${VAR:=default}, $$ for a literal $), the values taken from
environment variables; --list-variables prints the variables and their defaults instead.`;

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function renderTemplateCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CommandResult {
  const list = argv.includes('--list-variables');
  const rest = argv.filter((a) => a !== '--list-variables');
  if (rest.length !== 1 || rest[0].startsWith('-')) return { code: 2, stdout: '', stderr: `${RENDER_USAGE}\n` };
  try {
    const template = readFileSync(rest[0], 'utf8');
    if (list) {
      const lines = [...templateVariables(template)].map(([k, d]) => (d === undefined ? k : `${k} (default ${d})`));
      return { code: 0, stdout: lines.map((l) => `${l}\n`).join(''), stderr: '' };
    }
    return { code: 0, stdout: renderTemplate(template, env), stderr: '' };
  } catch (e) {
    return { code: 1, stdout: '', stderr: `error: ${rest[0]}: ${(e as Error).message}\n` };
  }
}

if (require.main === module) {
  const r = renderTemplateCommand(process.argv.slice(2), process.env);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.code;
}
