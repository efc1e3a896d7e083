// kube-apiserver's tables for the kinds Machine deletion reads (kubernetes pkg/printers/internalversion/printers.go
// printPersistentVolume, printPersistentVolumeClaim, printVolumeAttachment, printPodDisruptionBudget, printService).
// kube-apiserver always generates the wide cells; kubectl hides priority-1 columns unless -o wide.
import { timestampSince } from '@capi/apimachinery';
import type { Printer, TableColumn } from './printers';

type Obj = Record<string, any>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const col = (name: string, description: string, extra: Partial<TableColumn> = {}): TableColumn => ({
  name,
  type: 'string',
  format: '',
  description,
  priority: 0,
  ...extra,
});

/** helper.GetAccessModesAsString: the modes present, in kube's fixed order, abbreviated. */
const MODES: [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];
export function accessModes(modes: unknown): string {
  const set = new Set(Array.isArray(modes) ? modes : []);
  return MODES.filter(([m]) => set.has(m))
    .map(([, a]) => a)
    .join(',');
}

/** GetPersistentVolume(Claim)Class: the beta annotation wins over spec.storageClassName. */
const storageClass = (o: Obj): string =>
  str(o.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class']) || str(o.spec?.storageClassName);

/** labels.FormatLabels: sorted `k=v` pairs, "<none>" when empty. */
export function formatLabels(m: unknown): string {
  const entries = Object.entries(m && typeof m === 'object' ? (m as Record<string, string>) : {});
  return (
    entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join(',') || '<none>'
  );
}

/** IntOrString.String(): a number as its digits, a string as is. */
const intOrString = (v: unknown): string => (typeof v === 'number' ? String(v) : str(v));

/** getServiceExternalIP (wide, as the server prints). */
function serviceExternalIP(svc: Obj): string {
  const external: string[] = Array.isArray(svc.spec?.externalIPs) ? svc.spec.externalIPs : [];
  switch (svc.spec?.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress: Obj[] = Array.isArray(svc.status?.loadBalancer?.ingress) ? svc.status.loadBalancer.ingress : [];
      const lb = ingress.map((i) => str(i.ip) || str(i.hostname)).filter(Boolean);
      const all = [...lb, ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(svc.spec?.externalName);
  }
  return '<unknown>';
}

/** makePortString: `port/protocol`, `port:nodePort/protocol`. */
function servicePorts(svc: Obj): string {
  const ports: Obj[] = Array.isArray(svc.spec?.ports) ? svc.spec.ports : [];
  return (
    ports
      .map((p) => (p.nodePort > 0 ? `${p.port}:${p.nodePort}/${p.protocol}` : `${p.port}/${p.protocol}`))
      .join(',') || '<none>'
  );
}

/** The printers of these kinds; `name` and `age` are the columns every kube printer shares. */
export function storagePrinters(name: TableColumn, age: TableColumn): Record<string, Printer> {
  const since = (o: Obj, now: Date) => timestampSince(o.metadata?.creationTimestamp, now);
  const wide = (n: string, d: string) => col(n, d, { priority: 1 });
  return {
    '/PersistentVolume': {
      columns: [
        name,
        col('Capacity', "capacity is the description of the persistent volume's resources and capacity."),
        col('Access Modes', 'accessModes contains all ways the volume can be mounted.'),
        col(
          'Reclaim Policy',
          'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.',
        ),
        col('Status', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
        col(
          'Claim',
          'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.',
        ),
        col('StorageClass', 'StorageClass of the pv'),
        col('VolumeAttributesClass', 'VolumeAttributesClass of the pv'),
        col(
          'Reason',
          'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
        ),
        age,
        wide(
          'VolumeMode',
          'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
        ),
      ],
      cells: (o, now) => {
        const ref = o.spec?.claimRef;
        return [
          o.metadata?.name,
          str(o.spec?.capacity?.storage) || '0',
          accessModes(o.spec?.accessModes),
          str(o.spec?.persistentVolumeReclaimPolicy),
          o.metadata?.deletionTimestamp ? 'Terminating' : str(o.status?.phase),
          ref ? `${str(ref.namespace)}/${str(ref.name)}` : '',
          storageClass(o),
          str(o.spec?.volumeAttributesClassName) || '<unset>',
          str(o.status?.reason),
          since(o, now),
          str(o.spec?.volumeMode) || '<unset>',
        ];
      },
    },
    '/PersistentVolumeClaim': {
      columns: [
        name,
        col('Status', 'phase represents the current phase of PersistentVolumeClaim.'),
        col('Volume', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
        col('Capacity', 'capacity represents the actual resources of the underlying volume.'),
        col('Access Modes', 'accessModes contains the actual access modes the volume backing the PVC has.'),
        col('StorageClass', 'StorageClass of the pvc'),
        col('VolumeAttributesClass', 'VolumeAttributesClass of the pvc'),
        age,
        wide('VolumeMode', 'volumeMode defines what type of volume is required by the claim.'),
      ],
      cells: (o, now) => {
        const bound = !!str(o.spec?.volumeName);
        return [
          o.metadata?.name,
          o.metadata?.deletionTimestamp ? 'Terminating' : str(o.status?.phase),
          str(o.spec?.volumeName),
          bound ? str(o.status?.capacity?.storage) || '0' : '',
          bound ? accessModes(o.status?.accessModes) : '',
          storageClass(o),
          str(o.spec?.volumeAttributesClassName) || '<unset>',
          since(o, now),
          str(o.spec?.volumeMode) || '<unset>',
        ];
      },
    },
    'storage.k8s.io/VolumeAttachment': {
      columns: [
        name,
        col('Attacher', 'attacher indicates the name of the volume driver that MUST handle this request.', {
          format: 'name',
        }),
        col('PV', 'persistentVolumeName represents the name of the persistent volume to attach.'),
        col('Node', 'nodeName represents the node that the volume should be attached to.'),
        col('Attached', 'attached indicates the volume is successfully attached.', { type: 'boolean' }),
        age,
      ],
      cells: (o, now) => [
        o.metadata?.name,
        str(o.spec?.attacher),
        str(o.spec?.source?.persistentVolumeName),
        str(o.spec?.nodeName),
        o.status?.attached === true,
        since(o, now),
      ],
    },
    'policy/PodDisruptionBudget': {
      columns: [
        name,
        col('Min Available', 'The minimum number of pods that must be available.'),
        col('Max Unavailable', 'The maximum number of pods that may be unavailable.'),
        col('Allowed Disruptions', 'Calculated number of pods that may be disrupted at this time.', {
          type: 'integer',
        }),
        age,
      ],
      cells: (o, now) => [
        o.metadata?.name,
        o.spec?.minAvailable !== undefined && o.spec?.minAvailable !== null ? intOrString(o.spec.minAvailable) : 'N/A',
        o.spec?.maxUnavailable !== undefined && o.spec?.maxUnavailable !== null
          ? intOrString(o.spec.maxUnavailable)
          : 'N/A',
        typeof o.status?.disruptionsAllowed === 'number' ? o.status.disruptionsAllowed : 0,
        since(o, now),
      ],
    },
    '/Service': {
      columns: [
        name,
        col('Type', 'type determines how the Service is exposed.'),
        col('Cluster-IP', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
        col(
          'External-IP',
          'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
        ),
        col('Port(s)', 'The list of ports that are exposed by this service.'),
        age,
        wide('Selector', 'Route service traffic to pods with label keys and values matching this selector.'),
      ],
      cells: (o, now) => [
        o.metadata?.name,
        str(o.spec?.type),
        Array.isArray(o.spec?.clusterIPs) && o.spec.clusterIPs.length ? o.spec.clusterIPs[0] : '<none>',
        serviceExternalIP(o),
        servicePorts(o),
        since(o, now),
        formatLabels(o.spec?.selector),
      ],
    },
  };
}
