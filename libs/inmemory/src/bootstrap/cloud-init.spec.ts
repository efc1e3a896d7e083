import YAML from 'yaml';
import { BOOTSTRAP_API_VERSION, CLUSTER_API_VERSION, type KubeadmConfig, type Machine } from '@capi/api';
import {
  BootstrapDataError,
  bootstrapDataSecret,
  desiredConfigStatus,
  isInit,
  KUBEADM_CONFIG_PATH,
  renderCloudInit,
  secretRefsOf,
} from './cloud-init';
import { cloudInitFiles, fileDigest } from '../host/files';

const machine: Machine = {
  apiVersion: CLUSTER_API_VERSION,
  kind: 'Machine',
  metadata: { name: 'm1', namespace: 'ns' },
  spec: {
    clusterName: 'c',
    version: 'v1.31.0',
    bootstrap: {},
    infrastructureRef: { apiGroup: 'g', kind: 'K', name: 'n' },
  },
};
const config = (spec: KubeadmConfig['spec']): KubeadmConfig => ({
  apiVersion: BOOTSTRAP_API_VERSION,
  kind: 'KubeadmConfig',
  metadata: { name: 'kc', namespace: 'ns', uid: 'u1', generation: 2 },
  spec,
});
const parse = (text: string) => YAML.parse(text.replace(/^## template: jinja\n#cloud-config\n/, ''));
const clock = { now: () => Date.parse('2026-01-01T00:00:00Z') };

describe('renderCloudInit', () => {
  it('renders init for a first control plane: files, kubeadm config with the version, commands in order', () => {
    const text = renderCloudInit(
      config({
        initConfiguration: { nodeRegistration: { name: 'x' } },
        clusterConfiguration: { etcd: { local: { imageTag: '3.5' } } },
        files: [
          { path: '/a', content: 'A', permissions: '0600' },
          { path: '/b', contentFrom: { secret: { name: 's', key: 'k' } } },
        ],
        bootCommands: ['boot'],
        preKubeadmCommands: ['pre'],
        postKubeadmCommands: ['post'],
      }),
      machine,
      { '/b': 'B' },
    );
    expect(text.startsWith('## template: jinja\n#cloud-config\n')).toBe(true);
    const doc = parse(text);
    expect(doc.write_files.slice(0, 2)).toEqual([
      { path: '/a', permissions: '0600', content: 'A' },
      { path: '/b', content: 'B' },
    ]);
    const kubeadm = YAML.parse(doc.write_files[2].content);
    expect(kubeadm).toMatchObject({
      kind: 'InitConfiguration',
      nodeRegistration: { name: 'x' },
      clusterConfiguration: { kubernetesVersion: 'v1.31.0', etcd: { local: { imageTag: '3.5' } } },
    });
    expect(doc.runcmd).toEqual(['boot', 'pre', 'kubeadm init --config /run/kubeadm/kubeadm.yaml', 'post']);
    expect(doc['x-in-memory']).toEqual({ cluster: 'c', machine: 'm1', version: 'v1.31.0' });
  });

  it('renders join when there is a joinConfiguration', () => {
    expect(isInit({ initConfiguration: {}, joinConfiguration: {} })).toBe(false);
    const doc = parse(renderCloudInit(config({ joinConfiguration: { discovery: {} } }), machine, {}));
    expect(doc.runcmd).toEqual(['kubeadm join --config /run/kubeadm/kubeadm.yaml']);
  });

  it('fails with a reason for unresolved Secret content and for ignition', () => {
    const missing = config({ files: [{ path: '/b', contentFrom: { secret: { name: 's', key: 'k' } } }] });
    expect(secretRefsOf(missing.spec)).toEqual([{ path: '/b', name: 's', key: 'k' }]);
    expect(() => renderCloudInit(missing, machine, {})).toThrow(
      expect.objectContaining({ reason: 'SecretContentNotFound' }),
    );
    expect(() => renderCloudInit(config({ format: 'ignition' }), machine, {})).toThrow(BootstrapDataError);
  });
});

describe('bootstrapDataSecret', () => {
  it('is a cluster.x-k8s.io/secret named like the config, controlled by it, with value and format', () => {
    const s = bootstrapDataSecret(config({}), 'c', 'DATA');
    expect(s.metadata).toMatchObject({ name: 'kc', namespace: 'ns', labels: { 'cluster.x-k8s.io/cluster-name': 'c' } });
    expect(s.metadata.ownerReferences).toEqual([
      {
        apiVersion: BOOTSTRAP_API_VERSION,
        kind: 'KubeadmConfig',
        name: 'kc',
        uid: 'u1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(s.type).toBe('cluster.x-k8s.io/secret');
    expect(s.data).toEqual({
      value: Buffer.from('DATA').toString('base64'),
      format: Buffer.from('cloud-config').toString('base64'),
    });
  });
});

describe('desiredConfigStatus', () => {
  it('sets dataSecretCreated, dataSecretName and Ready on success', () => {
    const s = desiredConfigStatus(config({}), { secretName: 'kc' }, clock);
    expect(s).toMatchObject({
      initialization: { dataSecretCreated: true },
      dataSecretName: 'kc',
      observedGeneration: 2,
    });
    expect(s.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['DataSecretAvailable', 'True'],
      ['Ready', 'True'],
    ]);
  });

  it('reports the error reason and does not claim the secret', () => {
    const s = desiredConfigStatus(
      config({}),
      { error: new BootstrapDataError('SecretContentNotFound', 'file /b: missing') },
      clock,
    );
    expect(s.initialization).toBeUndefined();
    expect(s.conditions?.[0]).toMatchObject({
      type: 'DataSecretAvailable',
      status: 'False',
      reason: 'SecretContentNotFound',
      message: 'file /b: missing',
    });
  });
});

describe('the bootstrap data on the simulated host', () => {
  it("writes the KubeadmConfig's files (Secret contents resolved) and kubeadm's config, as cloud-init would", () => {
    const spec = {
      joinConfiguration: {},
      files: [
        { path: '/a', content: 'A' },
        { path: '/b', contentFrom: { secret: { name: 's', key: 'k' } } },
        { path: '/c', encoding: 'base64' as const, content: Buffer.from('C').toString('base64') },
      ],
    };
    const files = cloudInitFiles(renderCloudInit(config(spec), machine, { '/b': 'B' }));
    expect(Object.keys(files).sort()).toEqual(['/a', '/b', '/c', KUBEADM_CONFIG_PATH]);
    expect(files).toMatchObject({ '/a': fileDigest('A'), '/b': fileDigest('B'), '/c': fileDigest('C') });
  });
});
