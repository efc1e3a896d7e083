// Benchmark dispatcher: npm run bench -- <name> [args...]
import { runApiserverBench } from './apiserver';
import { runApiserverChaosBench } from './apiserver-chaos';
import { runEtcdChaosBench } from './etcd-chaos';
import { runManagerChaosBench, runPausedLeaderBench } from './manager-chaos';
import { runPlannerBench } from './planner';
import { runRolloutBench } from './rollout';
import { runSsaWritesBench } from './ssa-writes';

interface Bench {
  description: string;
  run(args: string[]): Promise<number>;
}

const benches: Record<string, Bench> = {
  planner: {
    description: 'RolloutPlanner time per plan on 1k/10k Machines and the 10k/1k ratio [sizes...]',
    run: runPlannerBench,
  },
  'ssa-writes': {
    description: 'API writes per effective change / per no-op reconcile through @capi/ssa patch [objects]',
    run: runSsaWritesBench,
  },
  rollout: {
    description:
      'in-place vs replacement rollout of a 1000-Machine MachineDeployment through the manager [replicas] [maxUnavailable] [timeoutSeconds]',
    run: runRolloutBench,
  },
  'manager-chaos': {
    description:
      'kill -9 the manager during an in-place rollout, check convergence / replaced Machines / double completions [kills] [seed] [replicas]',
    run: runManagerChaosBench,
  },
  'manager-chaos-leader': {
    description:
      'two --leader-elect managers: SIGSTOP the leader mid-rollout past the lease, check the deposed one sends nothing and exits 1 [pauses] [seed] [replicas]',
    run: runPausedLeaderBench,
  },
  apiserver: {
    description:
      'embedded API server ops/s and µs/op per verb (create/get/list/patch/status/apply) with W watchers [objects] [watchers] [--sqlite]',
    run: runApiserverBench,
  },
  'etcd-chaos': {
    description:
      '3-member etcd behind kube-apiserver: kill -9 a follower then the leader during an in-place rollout; convergence, kept Machines, single completions, write stalls [machines=300] [timeoutSeconds=1800] [--manager-flags]',
    run: runEtcdChaosBench,
  },
  'apiserver-chaos': {
    description: 'kill -9 the SQLite API server during writes, restart, verify acknowledged writes [iterations] [seed]',
    run: runApiserverChaosBench,
  },
};

function usage(): string {
  const names = Object.entries(benches).map(([n, b]) => `  ${n.padEnd(16)} ${b.description}`);
  return `usage: npm run bench -- <name> [args...]\n${names.join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  const bench = benches[name];
  if (!bench) {
    process.stderr.write(`error: unknown benchmark ${JSON.stringify(name)}\n${usage()}`);
    return 2;
  }
  return bench.run(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // One line (a rollout that did not converge, a server that did not start); BENCH_STACK=1 adds the stack.
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    if (process.env.BENCH_STACK && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
    process.exitCode = 1;
  },
);
