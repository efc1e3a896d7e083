// Cells of kube's printers for PersistentVolume(Claim), VolumeAttachment, PodDisruptionBudget and Service
// (kubernetes pkg/printers/internalversion/printers_test.go TestPrintPersistentVolume, TestPrintPodDisruptionBudget,
// TestPrintService, TestPrintVolumeAttachment).
import { accessModes, formatLabels, storagePrinters } from './printers-storage';

const col = { name: 'Name', type: 'string', format: 'name', description: '', priority: 0 };
const printers = storagePrinters(col, { ...col, name: 'Age', format: '' });
const NOW = new Date('2026-01-01T00:01:00Z');
const meta = { name: 'x', creationTimestamp: '2026-01-01T00:00:00Z' };

describe('storage printers', () => {
  it('access modes in kube order, labels sorted', () => {
    expect(accessModes(['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod', 'ReadOnlyMany'])).toBe(
      'RWO,ROX,RWX,RWOP',
    );
    expect(formatLabels({ b: '2', a: '1' })).toBe('a=1,b=2');
    expect(formatLabels({})).toBe('<none>');
  });

  it('PersistentVolume: Terminating when deleted, claim ns/name, class from the beta annotation first', () => {
    const cells = printers['/PersistentVolume'].cells(
      {
        metadata: {
          ...meta,
          deletionTimestamp: 'x',
          annotations: { 'volume.beta.kubernetes.io/storage-class': 'old' },
        },
        spec: {
          capacity: { storage: '4Gi' },
          accessModes: ['ReadOnlyMany'],
          persistentVolumeReclaimPolicy: 'Delete',
          storageClassName: 'new',
          claimRef: { namespace: 'ns', name: 'c' },
        },
        status: { phase: 'Bound' },
      },
      NOW,
    );
    expect(cells).toEqual(['x', '4Gi', 'ROX', 'Delete', 'Terminating', 'ns/c', 'old', '<unset>', '', '60s', '<unset>']);
  });

  it('PersistentVolumeClaim: capacity and modes only once bound', () => {
    const pvc = {
      metadata: meta,
      spec: { storageClassName: 'fast' },
      status: { phase: 'Pending', capacity: { storage: '1Gi' } },
    };
    expect(printers['/PersistentVolumeClaim'].cells(pvc, NOW)).toEqual([
      'x',
      'Pending',
      '',
      '',
      '',
      'fast',
      '<unset>',
      '60s',
      '<unset>',
    ]);
    const bound = {
      ...pvc,
      spec: { volumeName: 'pv', volumeMode: 'Filesystem' },
      status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] },
    };
    expect(printers['/PersistentVolumeClaim'].cells(bound, NOW)).toEqual([
      'x',
      'Bound',
      'pv',
      '1Gi',
      'RWO',
      '',
      '<unset>',
      '60s',
      'Filesystem',
    ]);
  });

  it('PodDisruptionBudget: N/A for the unset bound', () => {
    const cells = printers['policy/PodDisruptionBudget'].cells(
      { metadata: meta, spec: { maxUnavailable: '25%' }, status: { disruptionsAllowed: 2 } },
      NOW,
    );
    expect(cells).toEqual(['x', 'N/A', '25%', 2, '60s']);
  });

  it('Service: external IP by type, node ports, selector', () => {
    const cells = (spec: object, status: object = {}) =>
      printers['/Service'].cells({ metadata: meta, spec, status }, NOW);
    expect(
      cells({
        type: 'ClusterIP',
        clusterIPs: ['10.96.0.10'],
        ports: [{ port: 53, protocol: 'UDP' }],
        selector: { k: 'v' },
      }),
    ).toEqual(['x', 'ClusterIP', '10.96.0.10', '<none>', '53/UDP', '60s', 'k=v']);
    expect(cells({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] })[2]).toBe('<none>');
    expect(cells({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] })[4]).toBe(
      '80:30080/TCP',
    );
    expect(cells({ type: 'LoadBalancer' })[3]).toBe('<pending>');
    expect(cells({ type: 'LoadBalancer' }, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } })[3]).toBe('1.2.3.4');
    expect(cells({ type: 'ExternalName', externalName: 'example.com' })[3]).toBe('example.com');
  });

  it('VolumeAttachment', () => {
    const cells = printers['storage.k8s.io/VolumeAttachment'].cells(
      {
        metadata: meta,
        spec: { attacher: 'a', nodeName: 'n', source: { persistentVolumeName: 'pv' } },
        status: { attached: true },
      },
      NOW,
    );
    expect(cells).toEqual(['x', 'a', 'pv', 'n', true, '60s']);
  });
});
