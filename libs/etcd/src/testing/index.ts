export { FakeEtcdApi, fakeEtcdClient, type FakeEtcdOptions } from './fake-etcd';
