// The provider's in-place updater, running inside the manager (no HTTPS extension, no ExtensionConfig): it can change
// the Kubernetes version of a Machine in place, by "upgrading the kubelet" of its host (the Node's kubeletVersion).
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  encodePatch,
  type CanUpdateMachineRequest,
  type CanUpdateMachineResponse,
  type CanUpdateMachineSetRequest,
  type CanUpdateMachineSetResponse,
  type Machine,
  type UpdateMachineRequest,
  type UpdateMachineResponse,
} from '@capi/api';
import type { InPlaceUpdater, InProcessResponse } from '@capi/runtime-client';
import { EXAMPLE_FIELD_MANAGER, nodeStatusIntent, WorkloadClients } from './workload';

/** JSON patch ops that make `current.version` equal to `desired.version` (the only field this updater changes). */
function versionOps(path: string, current: string | undefined, desired: string | undefined) {
  return current === desired || desired === undefined
    ? []
    : [{ op: current === undefined ? 'add' : 'replace', path, value: desired }];
}

@Injectable()
export class ExampleUpdater implements InPlaceUpdater {
  readonly name = 'example-updater';
  readonly timeoutSeconds = 5;
  private readonly log = new Logger('ExampleUpdater');
  /** Machines (uid) whose update started: the first UpdateMachine call starts, the next one completes. */
  private readonly started = new Set<string>();
  /** How many UpdateMachine calls completed an update (the smoke test reads it from the log). */
  completed = 0;

  constructor(@Inject(WorkloadClients) private readonly workloads: WorkloadClients) {}

  canUpdateMachine(req: CanUpdateMachineRequest): InProcessResponse<CanUpdateMachineResponse> {
    const current = req.current.machine as Machine;
    const desired = req.desired.machine as Machine;
    const ops = versionOps('/spec/version', current.spec?.version, desired.spec?.version);
    return { status: 'Success', ...(ops.length ? { machinePatch: encodePatch('JSONPatch', ops) } : {}) };
  }

  canUpdateMachineSet(req: CanUpdateMachineSetRequest): InProcessResponse<CanUpdateMachineSetResponse> {
    const current = req.current.machineSet as { spec?: { template?: { spec?: { version?: string } } } };
    const desired = req.desired.machineSet as { spec?: { template?: { spec?: { version?: string } } } };
    const ops = versionOps(
      '/spec/template/spec/version',
      current.spec?.template?.spec?.version,
      desired.spec?.template?.spec?.version,
    );
    return { status: 'Success', ...(ops.length ? { machineSetPatch: encodePatch('JSONPatch', ops) } : {}) };
  }

  async updateMachine(req: UpdateMachineRequest): Promise<InProcessResponse<UpdateMachineResponse>> {
    const machine = req.desired.machine as Machine;
    const uid = `${machine.metadata.uid}/${machine.spec.version}`;
    if (!this.started.has(uid)) {
      this.started.add(uid);
      this.log.log(`updating Machine ${machine.metadata.name} to ${machine.spec.version}`);
      return {
        status: 'Success',
        retryAfterSeconds: 1,
        message: `example-updater is updating ${machine.metadata.name}`,
      };
    }
    const workload = await this.workloads.get(machine.metadata.namespace!, machine.spec.clusterName);
    if (!workload) throw new Error(`no kubeconfig Secret for Cluster ${machine.spec.clusterName}`);
    await workload.apply(nodeStatusIntent(machine.metadata.name!, machine.spec.version), {
      fieldManager: EXAMPLE_FIELD_MANAGER,
      force: true,
      subresource: 'status',
    });
    this.completed++;
    this.log.log(`updated Machine ${machine.metadata.name} to ${machine.spec.version} in place`);
    return { status: 'Success', retryAfterSeconds: 0, message: `example-updater updated ${machine.metadata.name}` };
  }
}
