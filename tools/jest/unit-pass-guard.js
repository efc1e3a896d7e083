// setupFiles of the unit pass (npm run test:unit, see jest.preset.js): that pass runs without an API server, binaries,
// ports or child processes, so a spec in it that starts a server or a process fails at once, saying so, instead of
// depending on what the pass does not provide. Such a spec belongs outside the pass: name it for what it needs
// (*.envtest.spec.ts, *.process.spec.ts, ...) or list it in SERVER_SPECS in jest.preset.js.
const net = require('node:net');
const childProcess = require('node:child_process');

const refuse = (what) =>
  function refused() {
    throw new Error(
      `the unit pass starts no servers or processes, and this spec ${what}: ` +
        'name it *.envtest.spec.ts (or .process/.e2e/.fuzz) or list it in SERVER_SPECS in jest.preset.js',
    );
  };

net.Server.prototype.listen = refuse('listens on a port');
for (const fn of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'])
  childProcess[fn] = refuse(`starts a process (child_process.${fn})`);
