// CLI: node -r @swc-node/register tools/conformance/main.ts [--dir <goldens>] [--out <dir for generated logs>]
// Exit code 0 only when every known scenario matches its golden file byte for byte.
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
  for (const f of report.unknownFiles) process.stdout.write(`UNKNOWN ${path.relative(root, f)} (no scenario defined)\n`);
  const failed = report.checks.filter((c) => c.status !== 'pass').length;
  process.stdout.write(`${report.checks.length - failed}/${report.checks.length} golden logs match\n`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = main();
