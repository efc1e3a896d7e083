import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL, MACHINE_DEPLOYMENT_NAME_LABEL } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { InformerCache } from '@capi/controller-runtime';
import { listOnlyClient } from '@capi/controller-runtime/testing';
import { CLUSTER_NAME_FIELD, controlledBy, indexMachineHealthChecks, indexMachineSets, indexMachines } from './indexes';

type Owner = [kind: string, name: string];
const object = (kind: string, name: string, cluster: string, labels: Record<string, string> = {}, owner?: Owner) => ({
  apiVersion: CLUSTER_API_VERSION,
  kind,
  metadata: {
    name,
    namespace: 'ns',
    labels,
    ownerReferences: owner
      ? [{ apiVersion: CLUSTER_API_VERSION, kind: owner[0], name: owner[1], uid: `uid-${owner[1]}`, controller: true }]
      : undefined,
  },
  spec: { clusterName: cluster },
});

async function synced(items: KubeObject[], register: (cache: InformerCache) => void): Promise<InformerCache> {
  const cache = new InformerCache(listOnlyClient(items));
  register(cache);
  register(cache); // controllers share the indexes: a second registration is a no-op
  cache.start();
  await cache.waitForSync(5_000);
  return cache;
}

const names = (list: { items: KubeObject[] }) => list.items.map((o) => o.metadata.name);

describe('cache indexes of the Cluster API kinds', () => {
  it('Machines: by controller owner, spec.clusterName and the cluster / deployment name labels', async () => {
    const cache = await synced(
      [
        object('Machine', 'm1', 'c1', { [CLUSTER_NAME_LABEL]: 'c1', [MACHINE_DEPLOYMENT_NAME_LABEL]: 'md1' }, [
          'MachineSet',
          'ms1',
        ]),
        object('Machine', 'm2', 'c1', { [CLUSTER_NAME_LABEL]: 'c1' }, ['MachineSet', 'ms2']),
        object('Machine', 'm3', 'c2', { [CLUSTER_NAME_LABEL]: 'c2' }),
      ],
      indexMachines,
    );
    try {
      const list = (opts: object) => cache.list(CLUSTER_API_VERSION, 'Machine', opts).then(names);
      await expect(list(controlledBy('ns', 'MachineSet', 'ms1'))).resolves.toEqual(['m1']);
      await expect(list({ matchingFields: { [CLUSTER_NAME_FIELD]: 'c1' } })).resolves.toEqual(['m1', 'm2']);
      await expect(list({ labelSelector: `${CLUSTER_NAME_LABEL}=c2` })).resolves.toEqual(['m3']);
      await expect(list({ labelSelector: `${MACHINE_DEPLOYMENT_NAME_LABEL}=md1` })).resolves.toEqual(['m1']);
    } finally {
      await cache.stop();
    }
  });

  it('MachineSets by controller owner and spec.clusterName; MachineHealthChecks by spec.clusterName', async () => {
    const sets = await synced(
      [object('MachineSet', 'ms1', 'c1', {}, ['MachineDeployment', 'md1']), object('MachineSet', 'ms2', 'c2')],
      (c) => indexMachineSets(c),
    );
    const checks = await synced([object('MachineHealthCheck', 'mhc1', 'c1')], indexMachineHealthChecks);
    try {
      const fields = { matchingFields: { [CLUSTER_NAME_FIELD]: 'c2' } };
      expect(names(await sets.list(CLUSTER_API_VERSION, 'MachineSet', fields))).toEqual(['ms2']);
      expect(
        names(await sets.list(CLUSTER_API_VERSION, 'MachineSet', controlledBy('ns', 'MachineDeployment', 'md1'))),
      ).toEqual(['ms1']);
      const byCluster = { matchingFields: { [CLUSTER_NAME_FIELD]: 'c1' } };
      expect(names(await checks.list(CLUSTER_API_VERSION, 'MachineHealthCheck', byCluster))).toEqual(['mhc1']);
    } finally {
      await Promise.all([sets.stop(), checks.stop()]);
    }
  });

  it('a list by an index that was not registered fails instead of scanning', async () => {
    const cache = await synced([object('MachineHealthCheck', 'mhc1', 'c1')], () => {});
    try {
      await expect(
        cache.list(CLUSTER_API_VERSION, 'MachineHealthCheck', { matchingFields: { [CLUSTER_NAME_FIELD]: 'c1' } }),
      ).rejects.toThrow(/no index "spec.clusterName"/);
    } finally {
      await cache.stop();
    }
  });
});
