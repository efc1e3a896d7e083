// setupFiles of the unit pass (npm run test:unit, see jest.preset.js): that pass runs without an API server, binaries,
// ports or child processes, so a spec in it that starts a server or a process fails at once, saying so, instead of
// depending on what the pass does not provide. Such a spec is an integration spec and belongs outside the pass: in
// the project's test/ folder (libs, apps), named for what it starts in tools/ (*.process.spec.ts, *.envtest.spec.ts).
const net = require('node:net');
const childProcess = require('node:child_process');

const refuse = (what) =>
  function refused() {
    throw new Error(
      `the unit pass starts no servers or processes, and this spec ${what}: ` +
        "move it to the project's test/ folder (in tools/: name it *.process.spec.ts, *.envtest.spec.ts, ...)",
    );
  };

net.Server.prototype.listen = refuse('listens on a port');
for (const fn of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'])
  childProcess[fn] = refuse(`starts a process (child_process.${fn})`);
