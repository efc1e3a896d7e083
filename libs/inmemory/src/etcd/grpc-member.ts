// One simulated etcd member as a gRPC server speaking etcd's API (the Cluster and Maintenance services of etcd's
// rpc.proto, as bundled by the etcd3 client): what KCP calls — MemberList, MemberRemove, Status, Alarm, MoveLeader —
// answered from the cluster state (cluster-state.ts) in the workload API server; the rest answers UNIMPLEMENTED, as
// upstream's in-memory handler (test/infrastructure/inmemory/pkg/server/etcd/handler.go) does. The server has no
// port: connections are injected (a port-forward's stream), over TLS with client certificates required.
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import {
  alarm,
  EtcdRpcError,
  memberList,
  moveLeader,
  removeMember,
  status,
  type AlarmAction,
  type EtcdAlarm,
  type EtcdAlarmType,
} from './cluster-state';
import type { EtcdClusterStore } from './store';

type ServiceDefinition = grpc.ServiceDefinition;
interface EtcdServices {
  Cluster: { service: ServiceDefinition };
  Maintenance: { service: ServiceDefinition };
}

let services: EtcdServices | undefined;

/** etcd's Cluster and Maintenance services, loaded once from the proto the etcd3 package ships. */
function etcdServices(): EtcdServices {
  if (!services) {
    const definition = loadSync(require.resolve('etcd3/proto/rpc.proto'), {
      keepCase: true,
      // 64-bit IDs stay exact as decimal strings; enums by number (the bundled proto renames etcd's enum values).
      longs: String,
      enums: Number,
      defaults: true,
      oneofs: true,
    });
    services = (grpc.loadPackageDefinition(definition) as unknown as { etcdserverpb: EtcdServices }).etcdserverpb;
  }
  return services;
}

/** rpc.proto AlarmType and AlarmRequest.AlarmAction values. */
const ALARM_TYPES: Record<number, EtcdAlarmType | undefined> = { 1: 'NOSPACE', 2: 'CORRUPT' };
const ALARM_NUMBERS: Record<EtcdAlarmType, number> = { NOSPACE: 1, CORRUPT: 2 };
const ALARM_ACTIONS: Record<number, AlarmAction | undefined> = { 0: 'GET', 1: 'ACTIVATE', 2: 'DEACTIVATE' };

const wireAlarm = (a: EtcdAlarm) => ({ memberID: a.memberID, alarm: ALARM_NUMBERS[a.alarm] });

type Handler = (request: Record<string, unknown>) => Promise<unknown>;

function unary(handler: Handler): grpc.handleUnaryCall<Record<string, unknown>, unknown> {
  return (call, callback) => {
    handler(call.request).then(
      (response) => callback(null, response),
      (e: unknown) =>
        callback({
          code: e instanceof EtcdRpcError ? e.code : grpc.status.UNKNOWN,
          details: e instanceof Error ? e.message : String(e),
        }),
    );
  };
}

function unimplemented(name: string): grpc.handleUnaryCall<unknown, unknown> {
  return (_call, callback) => callback({ code: grpc.status.UNIMPLEMENTED, details: `not implemented: ${name}` });
}

/** A gRPC server answering as member `name` of the cluster whose state `store` holds. */
export function etcdMemberServer(name: string, store: EtcdClusterStore, now: () => number = Date.now): grpc.Server {
  const { Cluster, Maintenance } = etcdServices();
  const server = new grpc.Server();
  const fill = (service: ServiceDefinition, impl: Record<string, grpc.UntypedHandleCall>) => {
    const all: grpc.UntypedServiceImplementation = {};
    for (const method of Object.keys(service)) all[method] = impl[method] ?? unimplemented(method);
    server.addService(service, all);
  };
  fill(Cluster.service, {
    MemberList: unary(async () => memberList(await store.read(), name)),
    MemberRemove: unary((req) =>
      store.update((s) => {
        const { state, response } = removeMember(s, name, String(req.ID));
        return { state, result: response, changed: true };
      }),
    ),
  });
  fill(Maintenance.service, {
    Status: unary(async () => status(await store.read(), name)),
    MoveLeader: unary((req) =>
      store.update((s) => {
        const { state, response, changed } = moveLeader(s, name, String(req.targetID), now());
        return { state, result: response, changed };
      }),
    ),
    Alarm: unary((req) =>
      store.update((s) => {
        const action = ALARM_ACTIONS[Number(req.action)] ?? 'GET';
        const { state, response, changed } = alarm(s, name, {
          action,
          memberID: String(req.memberID),
          alarm: ALARM_TYPES[Number(req.alarm)],
        });
        return { state, result: { header: response.header, alarms: response.alarms.map(wireAlarm) }, changed };
      }),
    ),
  });
  return server;
}
