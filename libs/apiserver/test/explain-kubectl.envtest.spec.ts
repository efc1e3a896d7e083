// `kubectl explain` and the OpenAPI documents it reads, with the real kubectl and the generated Cluster API CRDs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { waitFor } from './support/fixtures';
import { kubectlSuite } from './support/kubectl';

jest.setTimeout(60000);

const crdFile = (name: string) => YAML.parse(readFileSync(join(__dirname, '../../../config/crd', name), 'utf8'));
const { ok, kubectl } = kubectlSuite('apiserver-explain-', [
  crdFile('cluster.x-k8s.io_machines.yaml'),
  crdFile('controlplane.cluster.x-k8s.io_kubeadmcontrolplanes.yaml'),
]);

/** kube-apiserver publishes a new CRD's OpenAPI a moment after it is Established: retry until explain finds it. */
const explain = (args: string[]) =>
  waitFor(
    async () => {
      const r = await kubectl(['explain', ...args]);
      if (r.code !== 0) throw new Error(r.stderr);
      return r.stdout;
    },
    30000,
    `kubectl explain ${args.join(' ')}`,
  );

describe('kubectl explain', () => {
  it('machine.spec prints the descriptions of the Machine fields', async () => {
    const out = await explain(['machine.spec']);
    expect(out).toContain('KIND:       Machine');
    expect(out).toMatch(/DESCRIPTION:\n\s+The desired state of the Machine\./);
    expect(out).toMatch(/clusterName\t<string> -required-\n\s+Name of the Cluster this object belongs to; immutable\./);
    expect(out).toMatch(
      /minReadySeconds\t<integer>\n\s+Seconds the Machine must be Ready before it counts as Available/,
    );
  });

  it('kubeadmcontrolplane.spec.rollout prints the rollout fields with their descriptions', async () => {
    const out = await explain([
      'kubeadmcontrolplane.spec.rollout',
      '--api-version=controlplane.cluster.x-k8s.io/v1beta2',
    ]);
    expect(out).toContain('GROUP:      controlplane.cluster.x-k8s.io');
    expect(out).toMatch(/DESCRIPTION:\n\s+How and when control plane Machines are replaced\./);
    expect(out).toMatch(/before\t<Object>\n\s+Conditions that trigger replacing a Machine ahead of time\./);
  });
});

describe('/openapi/v2', () => {
  it('kubectl get --raw /openapi/v2 is a Swagger 2.0 document with the described CRD schemas and their paths', async () => {
    const doc = await waitFor(
      async () => {
        const d = JSON.parse(await ok(['get', '--raw', '/openapi/v2']));
        return d.definitions['io.x-k8s.cluster.v1beta2.Machine'] ? d : undefined;
      },
      30000,
      'the Machine definition in /openapi/v2',
    );
    expect(doc.swagger).toBe('2.0');
    const machine = doc.definitions['io.x-k8s.cluster.v1beta2.Machine'];
    expect(machine['x-kubernetes-group-version-kind']).toEqual([
      { group: 'cluster.x-k8s.io', version: 'v1beta2', kind: 'Machine' },
    ]);
    expect(machine.properties.spec.properties.clusterName.description).toBe(
      'Name of the Cluster this object belongs to; immutable.',
    );
    const item = doc.paths['/apis/cluster.x-k8s.io/v1beta2/namespaces/{namespace}/machines/{name}'];
    expect(item.get['x-kubernetes-group-version-kind']).toEqual({
      group: 'cluster.x-k8s.io',
      version: 'v1beta2',
      kind: 'Machine',
    });
    expect(doc.definitions['io.k8s.api.core.v1.ServiceAccount']).toBeDefined();
  });

  // client-go's DiscoveryClient.OpenAPISchema() fetches /openapi/v2 in protobuf only (gnostic openapi.v2.Document).
  it('kubectl explain --output=plaintext-openapiv2 reads the protobuf document: Machine and ServiceAccount fields', async () => {
    const out = await explain([
      'machine.spec.deletion',
      '--output=plaintext-openapiv2',
      '--api-version=cluster.x-k8s.io/v1beta2',
    ]);
    expect(out).toContain('KIND:     Machine');
    expect(out).toMatch(/DESCRIPTION:\n\s+Timeouts of the steps of deleting the Machine\./);
    expect(out).toMatch(/nodeDrainTimeoutSeconds\t<integer>\n\s+Total seconds allowed for draining the Node/);
    const sa = await explain(['serviceaccount', '--output=plaintext-openapiv2']);
    expect(sa).toMatch(/KIND:\s+ServiceAccount\nVERSION:\s+v1/);
  });

  it('kubectl apply --validate=true of a ServiceAccount and a ClusterRole works', async () => {
    const manifests = [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'explain-sa', namespace: 'default' } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'explain-reader' },
        rules: [{ apiGroups: ['cluster.x-k8s.io'], resources: ['machines'], verbs: ['get', 'list'] }],
      },
    ];
    const out = await ok(
      ['apply', '--validate=true', '-f', '-'],
      manifests.map((m) => YAML.stringify(m)).join('---\n'),
    );
    expect(out).toBe(
      'serviceaccount/explain-sa created\nclusterrole.rbac.authorization.k8s.io/explain-reader created\n',
    );
  });
});
