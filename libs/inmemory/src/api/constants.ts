// Names the in-memory provider writes (finalizers, field managers, condition types/reasons, labels, provider IDs).

export const INMEMORY_MACHINE_FINALIZER = 'inmemorymachine.infrastructure.cluster.x-k8s.io';
export const INMEMORY_CLUSTER_FINALIZER = 'inmemorycluster.infrastructure.cluster.x-k8s.io';

/** Field managers (SSA) of the provider's controllers. */
export const INMEMORY_FIELD_MANAGER = 'capi-inmemory';
/** The provider's controller names (work queues, metrics). */
export const INMEMORY_CLUSTER_CONTROLLER = 'inmemorycluster';
export const INMEMORY_MACHINE_CONTROLLER = 'inmemorymachine';
export const KUBEADM_BOOTSTRAP_FIELD_MANAGER = 'capi-kubeadmconfig';

/** Secret type Cluster API uses for kubeconfig and bootstrap data Secrets. */
export const CLUSTER_SECRET_TYPE = 'cluster.x-k8s.io/secret';
/** Key of the kubeconfig in `<cluster>-kubeconfig` and of the bootstrap data in the data Secret. */
export const SECRET_VALUE_KEY = 'value';
export const kubeconfigSecretName = (clusterName: string): string => `${clusterName}-kubeconfig`;

/** Provider ID scheme: `in-memory://<cluster>/<machine>`. */
export const PROVIDER_ID_PREFIX = 'in-memory://';
export const providerIdFor = (clusterName: string, machineName: string): string =>
  `${PROVIDER_ID_PREFIX}${clusterName}/${machineName}`;

// Condition types on the provider's objects (v1beta2 metav1.Condition).
export const VM_PROVISIONED_CONDITION = 'VMProvisioned';
export const NODE_PROVISIONED_CONDITION = 'NodeProvisioned';
/** Control-plane hosts: the etcd member serves TLS (upstream DevMachineInMemoryEtcdProvisionedCondition). */
export const ETCD_PROVISIONED_CONDITION = 'EtcdProvisioned';
export const WORKLOAD_API_SERVER_AVAILABLE_CONDITION = 'WorkloadAPIServerAvailable';
export const DATA_SECRET_AVAILABLE_CONDITION = 'DataSecretAvailable';

// Reasons.
export const PROVISIONED_REASON = 'Provisioned';
export const PROVISIONING_REASON = 'Provisioning';
export const WAITING_FOR_BOOTSTRAP_DATA_REASON = 'WaitingForBootstrapData';
/** The VM's bootstrap data could not be run (upstream DevMachine's BootstrapFailed, docker backend). */
export const BOOTSTRAP_FAILED_REASON = 'BootstrapFailed';
export const WAITING_FOR_MACHINE_REASON = 'WaitingForMachine';
export const WAITING_FOR_VM_REASON = 'WaitingForVM';
export const WAITING_FOR_VM_PROVISIONED_REASON = 'WaitingForVMProvisioned';
export const INTERNAL_ERROR_REASON = 'InternalError';
export const NODE_CREATION_FAILED_REASON = 'NodeCreationFailed';
export const AVAILABLE_REASON = 'Available';
export const NOT_AVAILABLE_REASON = 'NotAvailable';
export const START_FAILED_REASON = 'StartFailed';
export const SECRET_CONTENT_NOT_FOUND_REASON = 'SecretContentNotFound';
export const WAITING_FOR_OWNER_REASON = 'WaitingForOwner';

/** Node labels (kubelet / kubeadm conventions). */
export const NODE_ROLE_CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
/** Node annotation with the InMemoryMachine spec fields the host has applied (JSON), updated by in-place updates. */
export const APPLIED_SPEC_ANNOTATION = 'infrastructure.cluster.x-k8s.io/in-memory-applied-spec';
/**
 * Node annotation with the files on the simulated host (JSON, path → `sha256:<hex>` of the content): what bootstrap
 * (cloud-init write_files) and in-place updates (the KubeadmConfig's spec.files) wrote.
 */
export const HOST_FILES_ANNOTATION = 'infrastructure.cluster.x-k8s.io/in-memory-host-files';
