// The sample workload of a simulated workload cluster: Deployment default/sample whose Pods share a ReadWriteMany
// CSI volume (PVC sample-data bound to PV sample-data), and a PodDisruptionBudget that keeps all but one of them
// available, so a drain evicts one Pod at a time and waits for its replacement.
import type { KubeObject } from '@capi/apimachinery';
import { INMEMORY_CSI_DRIVER } from './volumes';

export const SAMPLE_NAMESPACE = 'default';
export const SAMPLE_NAME = 'sample';
export const SAMPLE_VOLUME = 'sample-data';
export const DEFAULT_SAMPLE_REPLICAS = 3;
const LABELS = { app: SAMPLE_NAME };

export function sampleWorkloadObjects(replicas = DEFAULT_SAMPLE_REPLICAS): KubeObject[] {
  const meta = (name: string, namespaced = true) => ({
    name,
    ...(namespaced ? { namespace: SAMPLE_NAMESPACE } : {}),
    labels: LABELS,
  });
  return [
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: meta(SAMPLE_VOLUME, false),
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteMany'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: '',
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: SAMPLE_NAMESPACE, name: SAMPLE_VOLUME },
        csi: { driver: INMEMORY_CSI_DRIVER, volumeHandle: SAMPLE_VOLUME },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: meta(SAMPLE_VOLUME),
      spec: {
        accessModes: ['ReadWriteMany'],
        resources: { requests: { storage: '1Gi' } },
        storageClassName: '',
        volumeName: SAMPLE_VOLUME,
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(SAMPLE_NAME),
      spec: {
        replicas,
        selector: { matchLabels: LABELS },
        template: {
          metadata: { labels: LABELS },
          spec: {
            containers: [
              {
                name: 'app',
                image: 'registry.k8s.io/pause:3.10',
                volumeMounts: [{ name: 'data', mountPath: '/data' }],
              },
            ],
            volumes: [{ name: 'data', persistentVolumeClaim: { claimName: SAMPLE_VOLUME } }],
            terminationGracePeriodSeconds: 30,
            // Workers first (the scheduler prefers untainted Nodes); control-plane Nodes when there are none.
            tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
          },
        },
      },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: meta(SAMPLE_NAME),
      spec: { minAvailable: Math.max(0, replicas - 1), selector: { matchLabels: LABELS } },
    },
  ] as KubeObject[];
}
