// SetDefaults_Service, the ClusterIP allocator and ValidateService's ports rule (pkg/apis/core/v1/defaults.go,
// pkg/registry/core/service/storage/alloc.go, pkg/apis/core/validation/validation.go).
import type { KubeObject } from '@capi/apimachinery';
import { allocateClusterIP, defaultService, serviceCauses } from './services';

const svc = (spec: object): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec });

describe('defaultService', () => {
  it("kube's defaults and a ClusterIP from the range", () => {
    const out = defaultService(
      svc({ ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] }),
      undefined,
      new Set(),
    );
    const spec = out.spec as Record<string, any>;
    expect(spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ports: [
        { port: 80, protocol: 'TCP', targetPort: 80 },
        { port: 53, protocol: 'UDP', targetPort: 'dns' },
      ],
      clusterIPs: [spec.clusterIP],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    });
    const [a, b] = spec.clusterIP.split('.').map(Number);
    expect(a).toBe(10);
    expect(b >= 96 && b < 112).toBe(true);
  });

  it('headless and ExternalName Services get no address; an update keeps the allocated one', () => {
    expect((defaultService(svc({ clusterIP: 'None' }), undefined, new Set()).spec as any).clusterIPs).toEqual(['None']);
    expect(
      (defaultService(svc({ type: 'ExternalName', externalName: 'x' }), undefined, new Set()).spec as any).clusterIP,
    ).toBeUndefined();
    const live = svc({ clusterIP: '10.96.0.7', clusterIPs: ['10.96.0.7'], ports: [{ port: 80 }] });
    expect((defaultService(svc({ ports: [{ port: 81 }] }), live, new Set()).spec as any).clusterIPs).toEqual([
      '10.96.0.7',
    ]);
  });

  it('allocates around the addresses in use', () => {
    const used = new Set<string>();
    for (let i = 0; i < 50; i++) used.add(allocateClusterIP(used));
    expect(used.size).toBe(50);
    expect(used.has('10.96.0.1')).toBe(false);
  });
});

describe('serviceCauses', () => {
  it('ports are required unless headless or ExternalName', () => {
    expect(serviceCauses(svc({ clusterIP: '10.96.0.9' }), undefined, new Set())).toEqual([
      { type: 'FieldValueRequired', field: 'spec.ports', message: 'Required value' },
    ]);
    expect(serviceCauses(svc({ clusterIP: 'None' }), undefined, new Set())).toEqual([]);
  });

  it('an address another Service holds is refused; an allocated one cannot change', () => {
    const taken = serviceCauses(
      svc({ clusterIP: '10.96.0.9', ports: [{ port: 1 }] }),
      undefined,
      new Set(['10.96.0.9']),
    );
    expect(taken[0].message).toBe(
      'Invalid value: []string{"10.96.0.9"}: failed to allocate IP 10.96.0.9: provided IP is already allocated',
    );
    const live = svc({ clusterIP: '10.96.0.7', ports: [{ port: 1 }] });
    expect(serviceCauses(svc({ clusterIP: '10.96.0.8', ports: [{ port: 1 }] }), live, new Set())[0].field).toBe(
      'spec.clusterIPs[0]',
    );
  });
});
