// CLI: node -r @swc-node/register tools/conformance/main.ts [--dir <goldens>] [--out <dir for generated logs>]
// Exit code 0 only when every scenario with a golden file matches it byte for byte (and at least one was compared).
import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'util';
import { goldenRoot } from '@capi/machineset';
import { checkGoldens } from './check';

function main(): number {
  const { values } = parseArgs({ options: { dir: { type: 'string' }, out: { type: 'string' } } });
  const root = path.resolve(values.dir ?? goldenRoot(__dirname));
  const report = checkGoldens(root);
  for (const c of report.checks) {
    process.stdout.write(`${c.status.toUpperCase().padEnd(7)} ${c.name}\n`);
    if (c.detail) process.stdout.write(`${c.detail.replace(/^/gm, '        ')}\n`);
    if (values.out && c.log !== undefined) {
      const target = path.join(values.out, path.relative(root, c.file));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, c.log);
    }
  }
  for (const f of report.unknownFiles)
    process.stdout.write(`UNKNOWN ${path.relative(root, f)} (no scenario defined)\n`);
  const compared = report.checks.filter((c) => c.status !== 'missing');
  const failed = compared.filter((c) => c.status === 'fail').length;
  process.stdout.write(
    `${compared.length - failed}/${compared.length} golden logs match (${report.checks.length - compared.length} without golden file)\n`,
  );
  return failed === 0 && compared.length > 0 ? 0 : 1;
}

process.exitCode = main();
