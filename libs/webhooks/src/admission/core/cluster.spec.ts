// Upstream core/webhooks/admission/cluster_test.go: TestClusterValidation (every case), TestClusterDefaultTopologyVersion,
// TestClusterFailOnMissingClassField and the managed → unmanaged case of TestMovingBetweenManagedAndUnmanaged. The
// other tables validate managed topologies against a ClusterClass, which this manager does not serve.
import type { Cluster } from '@capi/api';
import { FeatureGates } from '@capi/controller-runtime';
import { AdmissionError } from '../field-errors';
import { ClusterWebhook } from './cluster';

type Spec = NonNullable<Cluster['spec']>;

const infra = { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'GenericInfrastructureCluster', name: 'infra1' };
const cp = { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'GenericControlPlane', name: 'cp1' };
const cluster = (spec: Spec = {}, name = 'cluster1'): Cluster =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name, namespace: 'fooNamespace' },
    spec,
  }) as Cluster;
const withCP = (network?: Spec['clusterNetwork'], name?: string) =>
  cluster({ controlPlaneRef: cp, ...(network ? { clusterNetwork: network } : {}) }, name);

const webhook = new ClusterWebhook();

describe('Cluster webhook', () => {
  describe('TestClusterValidation', () => {
    it.each<[string, Cluster, Cluster | undefined, string]>([
      [
        'should succeed when namespaces match',
        cluster({ infrastructureRef: infra, controlPlaneRef: cp }),
        undefined,
        '',
      ],
      [
        'fails if topology is set but feature flag is disabled',
        cluster({ infrastructureRef: infra, controlPlaneRef: cp, topology: { classRef: { name: 'class' } } }),
        undefined,
        'spec.topology: Forbidden: can be set only if the ClusterTopology feature flag is enabled',
      ],
      [
        'fails if none of spec.controlPlaneRef, spec.infrastructureRef or spec.topology is set',
        cluster(),
        undefined,
        'spec: Forbidden: one of spec.controlPlaneRef, spec.infrastructureRef or spec.topology must be set',
      ],
      [
        'pass with undefined CIDR ranges',
        withCP({ services: { cidrBlocks: [] }, pods: { cidrBlocks: [] } }),
        undefined,
        '',
      ],
      ['pass with nil CIDR ranges', withCP({ services: {}, pods: {} }), undefined, ''],
      [
        'pass with valid IPv4 CIDR ranges',
        withCP({ services: { cidrBlocks: ['10.10.10.10/24'] }, pods: { cidrBlocks: ['10.10.10.10/24'] } }),
        undefined,
        '',
      ],
      [
        'pass with valid IPv6 CIDR ranges',
        withCP({
          services: { cidrBlocks: ['2004::1234:abcd:ffff:c0a8:101/64'] },
          pods: { cidrBlocks: ['2004::1234:abcd:ffff:c0a8:101/64'] },
        }),
        undefined,
        '',
      ],
      [
        'pass with valid dualstack CIDR ranges',
        withCP({
          services: { cidrBlocks: ['2004::1234:abcd:ffff:c0a8:101/64', '10.10.10.10/24'] },
          pods: { cidrBlocks: ['2004::1234:abcd:ffff:c0a8:101/64', '10.10.10.10/24'] },
        }),
        undefined,
        '',
      ],
      [
        'pass if multiple CIDR ranges of IPv4 are passed',
        withCP({ services: { cidrBlocks: ['10.10.10.10/24', '11.11.11.11/24'] } }),
        undefined,
        '',
      ],
      [
        'pass if multiple CIDR ranges of IPv6 are passed',
        withCP({ services: { cidrBlocks: ['2002::1234:abcd:ffff:c0a8:101/64', '2004::1234:abcd:ffff:c0a8:101/64'] } }),
        undefined,
        '',
      ],
      [
        'pass if too many cidr ranges are specified in the clusterNetwork pods field',
        withCP({ pods: { cidrBlocks: ['10.10.10.10/24', '11.11.11.11/24', '12.12.12.12/24'] } }),
        undefined,
        '',
      ],
      [
        'fails if service cidr ranges are not valid',
        withCP({ services: { cidrBlocks: ['10.10.10.10', '11.11.11.11'] } }),
        undefined,
        '[spec.clusterNetwork.services.cidrBlocks[0]: Invalid value: "10.10.10.10": invalid CIDR address: 10.10.10.10, spec.clusterNetwork.services.cidrBlocks[1]: Invalid value: "11.11.11.11": invalid CIDR address: 11.11.11.11]',
      ],
      [
        'fails if pod cidr ranges are not valid',
        withCP({ pods: { cidrBlocks: ['10.10.10.10', '11.11.11.11'] } }),
        undefined,
        '[spec.clusterNetwork.pods.cidrBlocks[0]: Invalid value: "10.10.10.10": invalid CIDR address: 10.10.10.10, spec.clusterNetwork.pods.cidrBlocks[1]: Invalid value: "11.11.11.11": invalid CIDR address: 11.11.11.11]',
      ],
      ['pass with name of under 63 characters', withCP(undefined, 'short-name'), undefined, ''],
      ['pass with _, -, . characters in name', withCP(undefined, 'thisNameContains.A_Non-Alphanumeric'), undefined, ''],
      [
        'fails if cluster name is longer than 63 characters',
        withCP(undefined, 'thisNameIsReallyMuchLongerThanTheMaximumLengthOfSixtyThreeCharacters'),
        undefined,
        'must be a valid label value must be no more than 63 bytes',
      ],
      [
        'error when name starts with NonAlphanumeric character',
        withCP(undefined, '-thisNameStartsWithANonAlphanumeric'),
        undefined,
        'must be a valid label value a valid label must be an empty string or consist of alphanumeric characters',
      ],
      [
        'error when name ends with NonAlphanumeric character',
        withCP(undefined, 'thisNameEndsWithANonAlphanumeric.'),
        undefined,
        'must be a valid label value a valid label must be an empty string or consist of alphanumeric characters',
      ],
      [
        'error when name contains invalid NonAlphanumeric character',
        withCP(undefined, 'thisNameContainsInvalid!@NonAlphanumerics'),
        undefined,
        'must be a valid label value a valid label must be an empty string or consist of alphanumeric characters',
      ],
      [
        'error when controlPlaneRef gets unset',
        cluster(),
        withCP(),
        'spec: Forbidden: one of spec.controlPlaneRef, spec.infrastructureRef or spec.topology must be set, spec.controlPlaneRef: Forbidden: cannot be removed',
      ],
      [
        'error when infrastructureRef gets unset',
        cluster(),
        cluster({ infrastructureRef: infra }),
        'spec.infrastructureRef: Forbidden: cannot be removed, spec: Forbidden: one of spec.controlPlaneRef, spec.infrastructureRef or spec.topology must be set',
      ],
    ])('%s', (_name, inObj, old, expectErrStr) => {
      const run = () => webhook.validate(old, inObj);
      if (expectErrStr) expect(run).toThrow(expectErrStr);
      else expect(run()).toEqual([]);
    });
  });

  it('answers 422 Invalid naming the Cluster', () => {
    try {
      webhook.validateCreate(cluster());
      throw new Error('not rejected');
    } catch (e) {
      expect((e as AdmissionError).status).toMatchObject({
        code: 422,
        reason: 'Invalid',
        message:
          'Cluster.cluster.x-k8s.io "cluster1" is invalid: spec: Forbidden: one of spec.controlPlaneRef, spec.infrastructureRef or spec.topology must be set',
        details: { name: 'cluster1', group: 'cluster.x-k8s.io', kind: 'Cluster', causes: [{ field: 'spec' }] },
      });
    }
  });

  it('with the ClusterTopology gate on, says managed topologies are not supported here', () => {
    const on = new ClusterWebhook({ featureGates: new FeatureGates({ ClusterTopology: true }) });
    expect(() => on.validateCreate(cluster({ topology: { classRef: { name: 'class' }, version: 'v1.30.0' } }))).toThrow(
      'spec.topology: Forbidden: topology is not supported by this manager',
    );
    expect(on.validateCreate(withCP())).toEqual([]);
  });

  it('TestMovingBetweenManagedAndUnmanaged: rejects removing spec.topology on update', () => {
    const managed = cluster({ controlPlaneRef: cp, topology: { classRef: { name: 'class1' }, version: 'v1.22.2' } });
    expect(() => webhook.validateUpdate(managed, withCP())).toThrow(
      'spec.topology: Forbidden: cannot be removed from an existing Cluster',
    );
  });

  it('TestClusterDefaultTopologyVersion: prefixes the topology version with v', () => {
    const c = cluster({ topology: { classRef: { name: 'foo' }, version: '1.19.1' } });
    webhook.default(c);
    expect(c.spec?.topology?.version).toBe('v1.19.1');
    webhook.default(c);
    expect(c.spec?.topology?.version).toBe('v1.19.1');
  });

  it('TestClusterFailOnMissingClassField: defaulting rejects a topology without classRef.name', () => {
    const c = cluster({ topology: { classRef: { name: '' }, version: '1.19.1' } });
    expect(() => webhook.default(c)).toThrow(
      'Cluster.cluster.x-k8s.io "cluster1" is invalid: spec.topology.classRef.name: Required value: cannot be empty',
    );
  });

  it('leaves a Cluster without topology alone when defaulting, and validates nothing on delete', () => {
    const c = withCP();
    const before = structuredClone(c);
    webhook.default(c);
    expect(c).toEqual(before);
    expect(webhook.validateDelete()).toEqual([]);
  });
});
