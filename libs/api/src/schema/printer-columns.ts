// Printer columns shared by the kinds, as upstream's `+kubebuilder:printcolumn` markers declare them
// (api/core/v1beta2/*_types.go, api/controlplane/kubeadm/v1beta2, api/bootstrap/kubeadm/v1beta2).
import type { PrinterColumn } from './kind';

/** The status of a condition; `priority` 10 shows it with `-o wide` only. */
export const conditionColumn = (name: string, type: string, description: string, priority?: number): PrinterColumn => ({
  name,
  type: 'string',
  jsonPath: `.status.conditions[?(@.type=="${type}")].status`,
  description,
  ...(priority ? { priority } : {}),
});

export const pausedColumn = (): PrinterColumn => conditionColumn('Paused', 'Paused', 'Reconciliation paused', 10);

export const ageColumn = (kind: string): PrinterColumn => ({
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: `Time duration since creation of ${kind}`,
});

/** The cluster-name label: for kinds without spec.clusterName (KubeadmControlPlane, KubeadmConfig). */
export const clusterLabelColumn = (): PrinterColumn => ({
  name: 'Cluster',
  type: 'string',
  jsonPath: `.metadata.labels['cluster\\.x-k8s\\.io/cluster-name']`,
  description: 'Cluster',
});
