// Fake cloud-init for KubeadmConfig bootstrap data (pure): what a kubeadm bootstrap provider would hand the VM,
// minus real certificates and tokens.
import YAML from 'yaml';
import type { PassiveClock, KubeObject } from '@capi/apimachinery';
import {
  BOOTSTRAP_API_VERSION,
  CLUSTER_NAME_LABEL,
  NOT_READY_REASON,
  READY_CONDITION,
  READY_REASON,
  setCondition,
  type KubeadmConfig,
  type KubeadmConfigSpec,
  type Machine,
} from '@capi/api';
import {
  AVAILABLE_REASON,
  CLUSTER_SECRET_TYPE,
  DATA_SECRET_AVAILABLE_CONDITION,
  SECRET_VALUE_KEY,
} from '../api/constants';

/** Where the kubeadm configuration is written on the VM. */
export const KUBEADM_CONFIG_PATH = '/run/kubeadm/kubeadm.yaml';

type KubeadmFile = NonNullable<KubeadmConfigSpec['files']>[number];

/** A file whose content comes from a Secret: which Secret/key (resolved by the controller). */
export const secretRefsOf = (spec: KubeadmConfigSpec): { path: string; name: string; key: string }[] =>
  (spec.files ?? []).filter((f) => f.contentFrom).map((f) => ({ path: f.path, ...f.contentFrom!.secret }));

export class BootstrapDataError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'BootstrapDataError';
  }
}

/**
 * A KubeadmConfig file as a cloud-init `write_files` entry; `resolved` maps paths to the content of their `contentFrom`
 * Secrets (a missing one is a BootstrapDataError). Used for bootstrap data and by in-place updates of `spec.files`.
 */
export function writeFileEntry(f: KubeadmFile, resolved: Record<string, string>) {
  const content = f.contentFrom ? resolved[f.path] : f.content;
  if (content === undefined && f.contentFrom) {
    throw new BootstrapDataError(
      'SecretContentNotFound',
      `file ${f.path}: key "${f.contentFrom.secret.key}" of Secret "${f.contentFrom.secret.name}" not found`,
    );
  }
  return {
    path: f.path,
    ...(f.owner ? { owner: f.owner } : {}),
    ...(f.permissions ? { permissions: f.permissions } : {}),
    ...(f.encoding ? { encoding: f.encoding } : {}),
    ...(f.append ? { append: true } : {}),
    content: content ?? '',
  };
}

/** Whether the Machine runs `kubeadm init` (first control plane) rather than `kubeadm join`. */
export const isInit = (spec: KubeadmConfigSpec): boolean =>
  spec.initConfiguration !== undefined && spec.joinConfiguration === undefined;

/**
 * The cloud-config document. `resolved` maps file paths to the content read from their `contentFrom` Secrets;
 * a missing entry is a BootstrapDataError.
 */
export function renderCloudInit(config: KubeadmConfig, machine: Machine, resolved: Record<string, string>): string {
  const spec = config.spec;
  if (spec.format === 'ignition')
    throw new BootstrapDataError(
      'UnsupportedFormat',
      'the in-memory bootstrap provider only renders cloud-config, not ignition',
    );
  const init = isInit(spec);
  const kubeadm = {
    apiVersion: 'kubeadm.k8s.io/v1beta4',
    kind: init ? 'InitConfiguration' : 'JoinConfiguration',
    ...(init ? spec.initConfiguration : spec.joinConfiguration),
    ...(init && spec.clusterConfiguration
      ? { clusterConfiguration: { ...spec.clusterConfiguration, kubernetesVersion: machine.spec.version } }
      : {}),
  };
  const doc = {
    write_files: [
      ...(spec.files ?? []).map((f) => writeFileEntry(f, resolved)),
      { path: KUBEADM_CONFIG_PATH, owner: 'root:root', permissions: '0640', content: YAML.stringify(kubeadm) },
    ],
    runcmd: [
      ...(spec.bootCommands ?? []),
      ...(spec.preKubeadmCommands ?? []),
      `kubeadm ${init ? 'init' : 'join'} --config ${KUBEADM_CONFIG_PATH}`,
      ...(spec.postKubeadmCommands ?? []),
    ],
    ...(spec.users?.length ? { users: spec.users } : {}),
    ...(spec.ntp ? { ntp: spec.ntp } : {}),
    // Not part of real cloud-init: identifies what the simulated VM bootstraps.
    'x-in-memory': {
      cluster: machine.spec.clusterName,
      machine: machine.metadata.name,
      version: machine.spec.version ?? null,
    },
  };
  return `## template: jinja\n#cloud-config\n${YAML.stringify(doc)}`;
}

/** The bootstrap data Secret (named like the KubeadmConfig, controlled by it). */
export function bootstrapDataSecret(config: KubeadmConfig, clusterName: string, cloudInit: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: config.metadata.name,
      namespace: config.metadata.namespace,
      labels: { [CLUSTER_NAME_LABEL]: clusterName },
      ownerReferences: [
        {
          apiVersion: BOOTSTRAP_API_VERSION,
          kind: 'KubeadmConfig',
          name: config.metadata.name!,
          uid: config.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    type: CLUSTER_SECRET_TYPE,
    data: {
      [SECRET_VALUE_KEY]: Buffer.from(cloudInit, 'utf8').toString('base64'),
      format: Buffer.from(config.spec.format ?? 'cloud-config', 'utf8').toString('base64'),
    },
  };
}

type KubeadmConfigStatus = NonNullable<KubeadmConfig['status']>;

/** Status once the data Secret exists (`secretName`), or why it cannot be created (`error`). */
export function desiredConfigStatus(
  config: KubeadmConfig,
  outcome: { secretName: string } | { error: BootstrapDataError },
  clock: PassiveClock,
): KubeadmConfigStatus {
  const current = config.status ?? {};
  const generation = config.metadata.generation;
  const ok = 'secretName' in outcome;
  let conditions = setCondition(
    current.conditions,
    ok
      ? {
          type: DATA_SECRET_AVAILABLE_CONDITION,
          status: 'True',
          reason: AVAILABLE_REASON,
          observedGeneration: generation,
        }
      : {
          type: DATA_SECRET_AVAILABLE_CONDITION,
          status: 'False',
          reason: outcome.error.reason,
          message: outcome.error.message,
          observedGeneration: generation,
        },
    clock,
  );
  conditions = setCondition(
    conditions,
    ok
      ? { type: READY_CONDITION, status: 'True', reason: READY_REASON, observedGeneration: generation }
      : {
          type: READY_CONDITION,
          status: 'False',
          reason: NOT_READY_REASON,
          message: outcome.error.message,
          observedGeneration: generation,
        },
    clock,
  );
  return {
    ...current,
    conditions,
    ...(ok ? { initialization: { dataSecretCreated: true }, dataSecretName: outcome.secretName } : {}),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}
