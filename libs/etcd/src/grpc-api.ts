// The etcd API over gRPC (what upstream gets from clientv3): etcd3's MaintenanceClient and ClusterClient on one
// @grpc/grpc-js channel to a local address (the port-forward bridge), with client-certificate TLS. As upstream
// (controlplane/kubeadm/pkg/cluster.go verifyEtcdServerCertificate) the serving certificate must chain to the etcd CA
// but its host names are not checked: members are reached by Pod name, which is not among its SANs.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ClusterClient, MaintenanceClient, type ICallable, type Services } from 'etcd3';
import { AlarmType, type CallOptions, type EtcdApi, type MemberAlarm } from './etcd-client';

/** PEM material of an etcd client: the CA to trust, the client certificate and its key. */
export interface EtcdTls {
  ca: string;
  cert: string;
  key: string;
}

type ServiceName = keyof typeof Services;
type ServiceCtor = new (address: string, creds: grpc.ChannelCredentials, options?: grpc.ClientOptions) => grpc.Client;

let serviceCtors: Record<string, ServiceCtor> | undefined;

/** The etcdserverpb services from the rpc.proto etcd3 bundles (longs as strings: 64-bit ids stay exact). */
function services(): Record<string, ServiceCtor> {
  if (!serviceCtors) {
    const definition = protoLoader.loadSync(require.resolve('etcd3/proto/rpc.proto'), {
      keepCase: true,
      longs: String,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    const loaded = grpc.loadPackageDefinition(definition) as unknown as { etcdserverpb: Record<string, ServiceCtor> };
    serviceCtors = loaded.etcdserverpb;
  }
  return serviceCtors;
}

/** etcd3's rpc.proto spells the AlarmType values None / Nospace / Corrupt (etcd's own: NONE / NOSPACE / CORRUPT). */
const ALARM_BY_NAME: Record<string, AlarmType> = {
  NONE: AlarmType.None,
  NOSPACE: AlarmType.NoSpace,
  CORRUPT: AlarmType.Corrupt,
};

/** The calls of etcd3's typed clients on one channel: no retries or host rotation (one endpoint, KCP retries). */
class ChannelCallable implements ICallable<unknown> {
  readonly callOptionsFactory = undefined;
  private readonly clients = new Map<string, grpc.Client>();

  constructor(
    private readonly channel: grpc.Channel,
    private readonly describe: (err: Error) => Error,
  ) {}

  private client(service: ServiceName): grpc.Client {
    let c = this.clients.get(service);
    if (!c) {
      const Ctor = services()[service];
      c = new Ctor('unused', grpc.credentials.createInsecure(), { channelOverride: this.channel });
      this.clients.set(service, c);
    }
    return c;
  }

  exec<T>(service: ServiceName, method: string, params: unknown, options?: grpc.CallOptions): Promise<T> {
    const client = this.client(service) as unknown as Record<
      string,
      (p: unknown, m: grpc.Metadata, o: grpc.CallOptions, cb: (err: Error | null, res: T) => void) => void
    >;
    return new Promise<T>((resolve, reject) =>
      client[method](params, new grpc.Metadata(), options ?? {}, (err, res) =>
        err ? reject(this.describe(err)) : resolve(res),
      ),
    );
  }

  withConnection<R>(): Promise<R> {
    return Promise.reject(new Error('streams are not used by the etcd client'));
  }

  markFailed(): void {}
}

export interface GrpcEtcdApiOptions {
  /** The etcd endpoint name (the etcd Pod): reported as the client's endpoint. */
  endpoint: string;
  /** host:port the channel connects to. */
  address: string;
  tls: EtcdTls;
  /** Turns a call's error into the error reported (e.g. adding why the connection could not be made). */
  describeError?: (err: Error) => Error;
  /** Runs after the channel is closed (e.g. closing the bridge). */
  onClose?: () => void | Promise<void>;
}

/** An EtcdApi over one gRPC channel; close() closes the channel, then runs onClose. */
export function grpcEtcdApi(opts: GrpcEtcdApiOptions): EtcdApi {
  const creds = grpc.credentials.createSsl(
    Buffer.from(opts.tls.ca),
    Buffer.from(opts.tls.key),
    Buffer.from(opts.tls.cert),
    { checkServerIdentity: () => undefined },
  );
  const channel = new grpc.Channel(opts.address, creds, {
    // One connection attempt per call: a member that cannot be reached fails the call instead of being retried
    // until the deadline (KCP tries the next member, then requeues).
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 1000,
  });
  const callable = new ChannelCallable(channel, opts.describeError ?? ((e) => e));
  const maintenance = new MaintenanceClient(callable);
  const cluster = new ClusterClient(callable);
  const call = (o: CallOptions): grpc.CallOptions => ({ deadline: o.deadline });
  let closed = false;
  return {
    endpoints: [opts.endpoint],
    async status(_endpoint, o) {
      const res = await maintenance.status(call(o));
      return { leader: res.leader, memberId: res.header.member_id };
    },
    async memberList(o) {
      const res = await cluster.memberList({ linearizable: true }, call(o));
      return {
        clusterId: res.header.cluster_id,
        members: res.members.map((m) => ({
          id: m.ID,
          name: m.name,
          peerURLs: m.peerURLs ?? [],
          clientURLs: m.clientURLs ?? [],
          isLearner: m.isLearner === true,
        })),
      };
    },
    async memberRemove(id, o) {
      await cluster.memberRemove({ ID: id }, call(o));
    },
    async moveLeader(id, o) {
      await maintenance.moveLeader({ targetID: id }, call(o));
    },
    async alarmList(o): Promise<MemberAlarm[]> {
      const res = await maintenance.alarm({ action: 0 /* GET */, memberID: 0, alarm: 0 /* NONE: all */ }, call(o));
      return (res.alarms ?? []).map((a) => ({
        memberId: a.memberID,
        type: ALARM_BY_NAME[String(a.alarm).toUpperCase()] ?? AlarmType.None,
      }));
    },
    async close() {
      if (closed) return;
      closed = true;
      channel.close();
      await opts.onClose?.();
    },
  };
}
