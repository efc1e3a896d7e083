// The "host" side of an in-place update: what actually changes on the simulated VM when an updater runs.
import { BOOTSTRAP_GROUP, type CanUpdateMachineObjects, type HookObject, type KubeadmConfigSpec } from '@capi/api';
import { groupOf, type KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import {
  findNodeByProviderID,
  WorkloadClusterConnectionError,
  type WorkloadClusterClientProvider,
} from '@capi/clustercache';
import { INMEMORY_API_VERSION, type InMemoryMachineSpec } from '../api/types';
import { NODE_ROLE_CONTROL_PLANE_LABEL } from '../api/constants';
import { appliedHostSpec, appliedSpecOf, isNodeReady, kubeletVersionOf, nodeNameFor, type HostState } from './node';
import { applyNode } from './nodes';
import { HostFileError, hostFilesOf, withWrittenFiles, writeFiles, type HostFiles } from './files';
import { BootstrapDataError, writeFileEntry } from '../bootstrap/cloud-init';
import { resolveSecretFiles } from '../bootstrap/secret-files';

/** Called by an updater (see startInMemoryInPlaceUpdater) while it handles UpdateMachine. Both must be idempotent. */
export interface InMemoryHostBackend {
  /** The updater started (or is still) updating the Machine. */
  beginUpdate?(machine: HookObject, desired: CanUpdateMachineObjects): Promise<void>;
  /**
   * The updater finished: bring the host to `desired` (kubelet version, InMemoryMachine spec fields, the KubeadmConfig's
   * files).
   */
  applyUpdate(machine: HookObject, desired: CanUpdateMachineObjects): Promise<void>;
}

export interface WorkloadNodeHostBackendOptions {
  /** Report the Node NotReady from the first UpdateMachine call until the update is applied (default false). */
  nodeNotReadyDuringUpdate?: boolean;
  /**
   * Reads the `contentFrom` Secrets of the desired KubeadmConfig's files in the management cluster (without it, an
   * update of such a file fails with a HostUpdateError).
   */
  secrets?: Client;
  now?: () => Date;
}

export class HostUpdateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostUpdateError';
  }
}

const specOf = (o: HookObject | undefined) => (o?.spec ?? {}) as Record<string, unknown>;

/** The desired KubeadmConfig's spec (undefined: no bootstrap config, or another kind). */
function kubeadmConfigSpecOf(desired: CanUpdateMachineObjects): KubeadmConfigSpec | undefined {
  const config = desired.bootstrapConfig;
  if (!config || config.kind !== 'KubeadmConfig' || groupOf(config.apiVersion) !== BOOTSTRAP_GROUP) return undefined;
  return (config.spec ?? {}) as KubeadmConfigSpec;
}

/**
 * What writing the KubeadmConfig's `spec.files` leaves on the host: each file gets the content a fresh bootstrap with
 * this config would write (`resolved`: contents of the `contentFrom` Secrets by path); files no longer listed stay,
 * as nothing deletes files from a disk.
 */
export function filesAfterUpdate(
  current: HostFiles,
  spec: KubeadmConfigSpec,
  resolved: Record<string, string>,
): HostFiles {
  try {
    return withWrittenFiles(current, writeFiles((spec.files ?? []).map((f) => writeFileEntry(f, resolved))));
  } catch (e) {
    if (e instanceof BootstrapDataError || e instanceof HostFileError) throw new HostUpdateError(e.message);
    throw e;
  }
}

/**
 * The host state after an update to `desired`, starting from the Node as it is (pure); `resolved` holds the
 * contents of the desired KubeadmConfig's `contentFrom` Secrets by path.
 */
export function hostStateAfterUpdate(
  node: KubeObject,
  desired: CanUpdateMachineObjects,
  providerID: string,
  resolved: Record<string, string> = {},
): HostState {
  const infra = desired.infrastructureMachine;
  const spec =
    infra?.apiVersion === INMEMORY_API_VERSION && infra.kind === 'InMemoryMachine'
      ? appliedHostSpec(infra.spec as InMemoryMachineSpec)
      : undefined;
  const version = specOf(desired.machine).version;
  const config = kubeadmConfigSpecOf(desired);
  const current = currentHostState(node, providerID);
  return {
    ...current,
    kubeletVersion: typeof version === 'string' ? version : undefined,
    // Another infra kind: the host keeps what it has.
    spec: spec ?? current.spec,
    // Another bootstrap kind: the files stay as they are.
    files: config ? filesAfterUpdate(current.files, config, resolved) : current.files,
    ready: true,
  };
}

/** The host as its Node shows it (pure). */
export function currentHostState(node: KubeObject, providerID: string): HostState {
  return {
    nodeName: node.metadata.name!,
    providerID,
    controlPlane: node.metadata.labels?.[NODE_ROLE_CONTROL_PLANE_LABEL] !== undefined,
    kubeletVersion: kubeletVersionOf(node),
    spec: appliedSpecOf(node),
    files: hostFilesOf(node),
    ready: isNodeReady(node),
  };
}

/** Applies updates to the Node of the Machine (found by spec.providerID) in the Machine's workload cluster. */
export class WorkloadNodeHostBackend implements InMemoryHostBackend {
  private readonly now: () => Date;
  /**
   * Node name last found per cluster and providerID. The hook's Machine carries no status (no nodeRef, as upstream's
   * cleaned-up request), so without it every UpdateMachine call listed all Nodes: O(Nodes) per call, a rollout
   * O(Machines²). findNodeByProviderID still checks the named Node's providerID and lists when it does not match.
   */
  private readonly nodeNames = new Map<string, string>();

  constructor(
    private readonly clients: WorkloadClusterClientProvider,
    private readonly opts: WorkloadNodeHostBackendOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  private async locate(machine: HookObject) {
    const spec = specOf(machine);
    const namespace = machine.metadata.namespace;
    const clusterName = spec.clusterName;
    const providerID = spec.providerID;
    if (!namespace || typeof clusterName !== 'string' || !clusterName)
      throw new HostUpdateError('Machine has no namespace or spec.clusterName');
    if (typeof providerID !== 'string' || !providerID)
      throw new HostUpdateError(`Machine ${namespace}/${machine.metadata.name} has no spec.providerID`);
    let client;
    try {
      client = await this.clients({ namespace, name: clusterName });
    } catch (e) {
      if (e instanceof WorkloadClusterConnectionError)
        throw new HostUpdateError(`workload cluster ${namespace}/${clusterName} is not reachable: ${e.message}`);
      throw e;
    }
    // The hook's Machine carries no status (no nodeRef: upstream's cleaned-up request), so without a name to try
    // every call listed all Nodes: O(Nodes) per call, a rollout O(Machines²). This provider names a Node after its
    // Machine (nodeNameFor); findNodeByProviderID checks the providerID and lists only if that Node is not it.
    const nodeName =
      (machine as { status?: { nodeRef?: { name?: string } } }).status?.nodeRef?.name ??
      (machine.metadata.name ? nodeNameFor(machine.metadata.name) : undefined);
    const node = await findNodeByProviderID(client, providerID, nodeName);
    if (!node)
      throw new HostUpdateError(
        `no Node with providerID ${providerID} in workload cluster ${namespace}/${clusterName}`,
      );
    return { client, node, providerID };
  }

  async beginUpdate(machine: HookObject, _desired: CanUpdateMachineObjects): Promise<void> {
    if (!this.opts.nodeNotReadyDuringUpdate) return;
    const { client, node, providerID } = await this.locate(machine);
    // Still the old host while updating: its version, spec and files stay, only the kubelet goes away.
    await applyNode(
      client,
      { ...currentHostState(node, providerID), ready: false, notReadyMessage: 'in-place update in progress' },
      this.now(),
      node,
    );
  }

  async applyUpdate(machine: HookObject, desired: CanUpdateMachineObjects): Promise<void> {
    const { client, node, providerID } = await this.locate(machine);
    const resolved = await this.resolveSecretFiles(machine, desired);
    await applyNode(client, hostStateAfterUpdate(node, desired, providerID, resolved), this.now(), node);
  }

  /** The desired KubeadmConfig's `contentFrom` files, read from the management cluster. */
  private async resolveSecretFiles(
    machine: HookObject,
    desired: CanUpdateMachineObjects,
  ): Promise<Record<string, string>> {
    const spec = kubeadmConfigSpecOf(desired);
    if (!spec?.files?.some((f) => f.contentFrom)) return {};
    if (!this.opts.secrets)
      throw new HostUpdateError('the host backend has no management cluster client to read files[].contentFrom');
    return resolveSecretFiles(this.opts.secrets, machine.metadata.namespace!, spec);
  }
}
