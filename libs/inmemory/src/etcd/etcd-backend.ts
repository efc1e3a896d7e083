// What answers a port-forward to a workload cluster's etcd Pod: the Pod's member (grpc-member.ts) over TLS as kubeadm
// configures etcd — a serving certificate signed by the cluster's etcd CA (names as upstream's in-memory
// etcdServerCertificateConfig in test/infrastructure/inmemory/pkg/server/certs.go) and client certificates required
// and verified against the same CA. It runs in the process of the API server it serves (the hook of
// ApiServerOptions.portForward); each forwarded stream is handed to the member's gRPC server as a connection.
import { duplexPair, type Duplex } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { renderKubeconfig, type PortForwardTarget, type StartedServer } from '@capi/apiserver';
import { KubeClient, type Client } from '@capi/controller-runtime';
import { KubeConfig } from '@kubernetes/client-node';
import { signCertificate, type KeyPair } from '@capi/certs';
import { etcdMemberServer } from './grpc-member';
import { EtcdClusterStore } from './store';

export const ETCD_CLIENT_PORT = 2379;
export const ETCD_POD_PREFIX = 'etcd-';
const KUBE_SYSTEM = 'kube-system';

interface Member {
  server: grpc.Server;
  injector: grpc.ConnectionInjector;
}

/** Two connected streams whose ends close together (a stream error or close on one side destroys the other). */
export function connectedPair(): [Duplex, Duplex] {
  const [a, b] = duplexPair();
  const link = (from: Duplex, to: Duplex) => {
    from.on('error', (e) => to.destroy(e));
    from.on('close', () => to.destroy());
  };
  link(a, b);
  link(b, a);
  return [a, b];
}

export class EtcdBackend {
  private ca?: KeyPair;
  private readonly members = new Map<string, Promise<Member>>();
  private readonly store: EtcdClusterStore;
  private closed = false;

  /** `client` reaches the API server this backend serves (where the cluster's etcd state lives). */
  constructor(
    client: Client,
    private readonly onClose?: () => void,
  ) {
    this.store = new EtcdClusterStore(client);
  }

  /** The backend of a server in this process, with its own client of it (closed with the backend). */
  static forServer(server: StartedServer): EtcdBackend {
    const kc = new KubeConfig();
    kc.loadFromString(renderKubeconfig({ ...server, name: 'workload' }));
    const client = new KubeClient(kc);
    return new EtcdBackend(client, () => client.close());
  }

  /**
   * The cluster's etcd CA (the `<cluster>-etcd` Secret), handed over by the InMemoryMachine controller. A new CA
   * re-issues the members' serving certificates (new connections use them).
   */
  setCA(ca: KeyPair): void {
    if (this.ca && this.ca.cert === ca.cert && this.ca.key === ca.key) return;
    this.ca = ca;
    this.dropMembers();
  }

  hasCA(): boolean {
    return this.ca !== undefined;
  }

  /** The ApiServerOptions.portForward hook: a stream to the etcd member of an etcd Pod, port 2379. */
  async portForward(target: PortForwardTarget): Promise<Duplex> {
    const { namespace, pod, port, podObject } = target;
    const isEtcd =
      namespace === KUBE_SYSTEM && pod.startsWith(ETCD_POD_PREFIX) && podObject.metadata.labels?.component === 'etcd';
    if (!isEtcd) throw new Error(`no container runtime runs Pod ${namespace}/${pod}: only etcd members are simulated`);
    if (port !== ETCD_CLIENT_PORT)
      throw new Error(`failed to connect to localhost:${port} inside Pod ${namespace}/${pod}: connection refused`);
    const member = await this.member(pod.slice(ETCD_POD_PREFIX.length), pod);
    const [outer, inner] = connectedPair();
    member.injector.injectConnection(inner);
    return outer;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.dropMembers();
    this.onClose?.();
  }

  private member(name: string, pod: string): Promise<Member> {
    if (this.closed) return Promise.reject(new Error('the workload API server is stopping'));
    const ca = this.ca;
    if (!ca)
      return Promise.reject(
        new Error(`etcd member ${name} cannot serve TLS yet: the cluster's etcd CA was not handed to its API server`),
      );
    let member = this.members.get(name);
    if (!member) {
      member = this.startMember(name, pod, ca);
      this.members.set(name, member);
      member.catch(() => this.members.delete(name));
    }
    return member;
  }

  private async startMember(name: string, pod: string, ca: KeyPair): Promise<Member> {
    const serving = await signCertificate(ca, {
      commonName: pod,
      usage: 'client-server',
      dnsNames: ['localhost', pod],
      ipAddresses: ['127.0.0.1', '::1'],
    });
    const server = etcdMemberServer(name, this.store);
    const credentials = grpc.ServerCredentials.createSsl(
      Buffer.from(ca.cert),
      [{ cert_chain: Buffer.from(serving.cert), private_key: Buffer.from(serving.key) }],
      true,
    );
    return { server, injector: server.createConnectionInjector(credentials) };
  }

  private dropMembers(): void {
    const members = [...this.members.values()];
    this.members.clear();
    for (const m of members)
      void m.then(
        ({ server, injector }) => {
          injector.destroy();
          server.forceShutdown();
        },
        () => undefined,
      );
  }
}
