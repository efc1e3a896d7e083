import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { goldenPath, goldenRoot } from '@capi/machineset';
import { checkGoldens, knownScenarios } from './check';

describe('checkGoldens', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'goldens-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('fails clearly when the golden directory is missing', () => {
    expect(() => checkGoldens(path.join(tmp, 'nope'))).toThrow(/golden directory not found/);
  });

  it('reports pass, fail (with the first difference), missing and unknown files', () => {
    const [first, second] = knownScenarios();
    const goldens = goldenRoot(__dirname);
    const dir = path.join(tmp, 'rollingupdate');
    fs.mkdirSync(dir, { recursive: true });
    const name = (s: typeof first) => path.basename(goldenPath(goldens, s));
    fs.copyFileSync(path.join(goldens, 'rollingupdate', name(first)), path.join(dir, name(first)));
    const altered = fs
      .readFileSync(path.join(goldens, 'rollingupdate', name(second)), 'utf8')
      .replace('Iteration 2,', 'Iteration 3,');
    fs.writeFileSync(path.join(dir, name(second)), altered);
    fs.writeFileSync(path.join(dir, 'held out.test.log.golden'), 'x');

    const report = checkGoldens(tmp, knownScenarios().slice(0, 3));
    expect(report.checks.map((c) => c.status)).toEqual(['pass', 'fail', 'missing']);
    expect(report.checks[1].detail).toMatch(/first difference at line \d+/);
    expect(report.unknownFiles).toEqual([path.join(dir, 'held out.test.log.golden')]);
  });
});
