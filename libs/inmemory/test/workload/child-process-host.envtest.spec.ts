// Workload API servers in a child process: real servers in a real forked process, reached over HTTPS.
import { renderKubeconfig } from '@capi/apiserver';
import type { KubeClient } from '@capi/controller-runtime';
import { clientFor, eventually } from '@capi/envtest';
import { type WorkloadServer } from '@capi/inmemory';
import { ChildProcessWorkloadServerHost } from '../../src/workload/child-process-host';

// Forking a child that compiles TypeScript on the fly takes a few seconds on a busy 2-core machine.
jest.setTimeout(60_000);

const clientOf = (s: Pick<WorkloadServer, 'url' | 'token' | 'caData'>) =>
  clientFor(renderKubeconfig({ url: s.url, token: s.token, caData: s.caData, name: 'w' }));
const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('ChildProcessWorkloadServerHost', () => {
  it('serves from another process: reads, request counts and storage come from the child; close() ends it', async () => {
    const host = new ChildProcessWorkloadServerHost();
    let client: KubeClient | undefined;
    try {
      const server = await host.start('127.0.0.1');
      const lost: string[] = [];
      server.onLost((reason) => lost.push(reason));
      const pid = host.pid()!;
      expect(pid).not.toBe(process.pid);
      expect(server.alive).toBe(true);
      client = clientOf(server);
      await server.resetRequests();
      expect((await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' })).metadata.name).toBe(
        'default',
      );
      await client.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
      const counts = await server.countRequests();
      expect(counts.byVerbResource['get /namespaces']).toBe(1);
      expect(counts.byVerbResource['create /nodes']).toBe(1);
      expect((await server.storageUsage()).databaseBytes).toBeGreaterThan(0);
      // A second server shares the child.
      const second = await host.start('127.0.0.1');
      expect(host.pid()).toBe(pid);
      expect(second.port).not.toBe(server.port);
      await second.stop();
      expect(second.alive).toBe(false);
      await expect(second.countRequests()).rejects.toThrow(/is gone/);
      await host.close();
      expect(host.pid()).toBeUndefined();
      expect(running(pid)).toBe(false);
      expect(server.alive).toBe(false);
      expect(lost).toEqual([]); // closed on purpose: not lost
    } finally {
      client?.close();
      await host.close();
    }
  });

  it('a killed child: its servers are dead, requests fail with the reason, the next start forks a new child', async () => {
    const host = new ChildProcessWorkloadServerHost();
    try {
      const server = await host.start('127.0.0.1');
      const lost: string[] = [];
      server.onLost((reason) => lost.push(reason));
      const pid = host.pid()!;
      process.kill(pid, 'SIGKILL');
      await eventually(() => !server.alive, { timeoutMs: 10_000, message: 'server marked dead' });
      expect(lost).toEqual([`the workload servers' process ${pid} exited (SIGKILL)`]);
      await expect(server.countRequests()).rejects.toThrow(/is gone/);
      const again = await host.start('127.0.0.1', server.port);
      expect(host.pid()).not.toBe(pid);
      expect(again.alive).toBe(true);
      expect(again.port).toBe(server.port); // the dead child's port was free again
    } finally {
      await host.close();
    }
  });
});
