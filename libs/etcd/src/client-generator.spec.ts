// Upstream controlplane/kubeadm/pkg/etcd_client_generator_test.go TestFirstAvailableNode, every case.
import { EtcdClientGenerator, type ClientCreator } from './client-generator';
import { fakeEtcdClient } from './testing';

describe('EtcdClientGenerator.forFirstAvailableNode (upstream TestFirstAvailableNode)', () => {
  const ok: ClientCreator = (endpoint) => fakeEtcdClient({ endpoints: [endpoint] });
  const cases: {
    name: string;
    nodes: string[];
    cc?: ClientCreator;
    expectedErr?: string;
    expectedEndpoint?: string;
  }[] = [
    { name: 'Returns client successfully', nodes: ['node-1'], cc: ok, expectedEndpoint: 'etcd-node-1' },
    {
      name: 'Fails when called with an empty node list',
      nodes: [],
      expectedErr: "invalid argument: forFirstAvailableNode can't be called with an empty list of nodes",
    },
    {
      name: 'Returns error from client',
      nodes: ['node-1', 'node-2'],
      cc: () => Promise.reject(new Error('something went wrong')),
      expectedErr: 'could not establish a connection to etcd members hosted on node-1,node-2: something went wrong',
    },
    {
      name: 'Returns client when some of the nodes are down but at least one node is up',
      nodes: ['node-down-1', 'node-down-2', 'node-up'],
      cc: (endpoint) => (endpoint.includes('node-down') ? Promise.reject(new Error('node down')) : ok(endpoint)),
      expectedEndpoint: 'etcd-node-up',
    },
    {
      name: 'Distinct errors of the members are aggregated (kerrors.NewAggregate)',
      nodes: ['a', 'b'],
      cc: (endpoint) => Promise.reject(new Error(`${endpoint} down`)),
      expectedErr: 'could not establish a connection to etcd members hosted on a,b: [etcd-a down, etcd-b down]',
    },
  ];
  it.each(cases)('$name', async ({ nodes, cc, expectedErr, expectedEndpoint }) => {
    const generator = new EtcdClientGenerator(cc ?? (() => Promise.reject(new Error('not called'))));
    const result = generator.forFirstAvailableNode(nodes);
    if (expectedErr) await expect(result).rejects.toThrow(expectedErr);
    else expect((await result).endpoint).toBe(expectedEndpoint);
  });
});
