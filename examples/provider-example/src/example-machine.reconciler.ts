// ExampleMachine controller: once the owning Machine has bootstrap data, "boots" the host (registers its Node in the
// workload cluster), then reports spec.providerID, status.addresses and status.initialization.provisioned.
import { Inject } from '@nestjs/common';
import { ClusterGVK, MachineGVK, type Cluster, type Machine } from '@capi/api';
import {
  CACHED_CLIENT,
  ReconcilerFor,
  type Client,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { EXAMPLE_API_VERSION, type ExampleMachine } from './api';
import { EXAMPLE_FIELD_MANAGER, nodeIntent, nodeStatusIntent, WorkloadClients } from './workload';

const KIND = 'ExampleMachine';
const RETRY_MS = 2_000;

export const providerIdOf = (machine: Machine) => `example://${machine.metadata.namespace}/${machine.metadata.name}`;

@ReconcilerFor({
  name: 'examplemachine',
  for: { apiVersion: EXAMPLE_API_VERSION, kind: KIND },
  watches: [
    {
      apiVersion: MachineGVK.apiVersion,
      kind: MachineGVK.kind,
      map: (m) => {
        const ref = (m as Machine).spec?.infrastructureRef;
        return ref?.kind === KIND && m.metadata.namespace ? [{ namespace: m.metadata.namespace, name: ref.name }] : [];
      },
    },
  ],
})
export class ExampleMachineReconciler implements Reconciler {
  constructor(
    @Inject(CACHED_CLIENT) private readonly client: Client,
    @Inject(WorkloadClients) private readonly workloads: WorkloadClients,
  ) {}

  async reconcile(req: Request): Promise<Result | void> {
    const infra = await this.client.tryGet<ExampleMachine>({
      apiVersion: EXAMPLE_API_VERSION,
      kind: KIND,
      namespace: req.namespace,
      name: req.name,
    });
    if (!infra || infra.metadata.deletionTimestamp) return;
    const owner = infra.metadata.ownerReferences?.find((r) => r.kind === 'Machine');
    if (!owner) return; // the Machine controller sets it; the Machine watch brings us back
    const machine = await this.client.tryGet<Machine>({
      apiVersion: MachineGVK.apiVersion,
      kind: 'Machine',
      namespace: req.namespace,
      name: owner.name,
    });
    if (!machine?.spec.bootstrap.dataSecretName) return;
    const cluster = await this.client.tryGet<Cluster>({
      apiVersion: ClusterGVK.apiVersion,
      kind: 'Cluster',
      namespace: req.namespace,
      name: machine.spec.clusterName,
    });
    const workload = cluster && (await this.workloads.get(req.namespace!, cluster.metadata.name!));
    if (!workload) return { requeueAfterMs: RETRY_MS };

    const providerID = providerIdOf(machine);
    if (!(await workload.tryGet({ apiVersion: 'v1', kind: 'Node', name: machine.metadata.name! }))) {
      await workload.apply(nodeIntent(machine.metadata.name!, providerID), {
        fieldManager: EXAMPLE_FIELD_MANAGER,
        force: true,
      });
      await workload.apply(nodeStatusIntent(machine.metadata.name!, machine.spec.version), {
        fieldManager: EXAMPLE_FIELD_MANAGER,
        force: true,
        subresource: 'status',
      });
    }
    if (infra.spec.providerID !== providerID) {
      await this.client.patch(
        { apiVersion: EXAMPLE_API_VERSION, kind: KIND, namespace: req.namespace, name: req.name },
        'merge',
        { spec: { providerID } },
      );
    }
    if (infra.status?.initialization?.provisioned !== true) {
      await this.client.patch(
        { apiVersion: EXAMPLE_API_VERSION, kind: KIND, namespace: req.namespace, name: req.name },
        'merge',
        {
          status: { initialization: { provisioned: true }, addresses: [{ type: 'InternalIP', address: '10.0.0.10' }] },
        },
        { subresource: 'status' },
      );
    }
  }
}
