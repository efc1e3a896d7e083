export { FakeEtcdApi, fakeEtcdClient, type FakeEtcdOptions } from './fake-etcd';
export { startPortForwardServer, type PortForwardServer } from './portforward-server';
export { startTlsEtcd, type TlsEtcd } from './tls-etcd';
