export {
  ALARM_TYPE_NAME,
  AlarmType,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_DIAL_TIMEOUT_MS,
  EtcdClient,
  type EtcdApi,
  type EtcdMember,
  type MemberAlarm,
  memberEqual,
  memberForId,
  memberForName,
  memberNames,
} from './etcd-client';
export {
  type ClientCreator,
  ETCD_CLIENT_PORT,
  EtcdClientGenerator,
  portForwardedEtcdClient,
  staticPodName,
  type WorkloadEtcdOptions,
} from './client-generator';
export { type EtcdTls, grpcEtcdApi } from './grpc-api';
export { PortForwardDialer, PORT_FORWARD_PROTOCOL, type PortForwardProxy } from './portforward-dialer';
export { LoopbackBridge } from './loopback-bridge';
export { aggregateErrors, errorMessage, rootCause, wrapError } from './errors';
export {
  CLIENT_CERT_CACHE_TTL_MS,
  ETCD_CLIENT_COMMON_NAME,
  EtcdClientCertCache,
  generateEtcdClientCert,
} from './client-cert';
