// core/v1 Service as kube-apiserver stores it: SetDefaults_Service (pkg/apis/core/v1/defaults.go), the ClusterIP
// allocator of the Service REST (pkg/registry/core/service/storage/alloc.go, ipallocator) and ValidateService's
// ports rule (pkg/apis/core/validation/validation.go).
import { randomInt } from 'node:crypto';
import type { KubeObject } from '@capi/apimachinery';
import type { Cause } from './status';

type Obj = Record<string, any>;

/**
 * The service CIDR ClusterIPs come from: kubeadm's default --service-cidr (10.96.0.0/12). Its first address is the
 * `kubernetes` Service's in kube, so it is never handed out here.
 */
export const SERVICE_CIDR = { base: (10 << 24) | (96 << 16), size: 1 << 20 };

const ipString = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** A random free address of the range (kube's ipallocator picks at random too), skipping network, first, broadcast. */
export function allocateClusterIP(used: Set<string>): string {
  for (let i = 0; i < 64; i++) {
    const ip = ipString(SERVICE_CIDR.base + 2 + randomInt(SERVICE_CIDR.size - 3));
    if (!used.has(ip)) return ip;
  }
  for (let n = 2; n < SERVICE_CIDR.size - 1; n++) {
    const ip = ipString(SERVICE_CIDR.base + n);
    if (!used.has(ip)) return ip;
  }
  throw new Error('range is full');
}

const isHeadless = (spec: Obj) => spec.clusterIP === 'None';

/**
 * SetDefaults_Service and the ClusterIP of a Service: type ClusterIP, sessionAffinity None, port protocol TCP and
 * targetPort = port, internalTrafficPolicy Cluster; a new ClusterIP (unless headless or ExternalName) from `used`,
 * or the live one kept when an update leaves it out (kube's patchAllocatedValues).
 */
export function defaultService(svc: KubeObject, live: KubeObject | undefined, used: Set<string>): KubeObject {
  const spec: Obj = { ...((svc.spec as Obj) ?? {}) };
  const old: Obj = (live?.spec as Obj) ?? {};
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  if (Array.isArray(spec.ports))
    spec.ports = spec.ports.map((p: Obj) => {
      const port: Obj = { ...p, protocol: p.protocol ?? 'TCP' };
      if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') port.targetPort = p.port;
      return port;
    });
  if (spec.type !== 'ExternalName') {
    if (!spec.clusterIP && old.clusterIP) {
      spec.clusterIP = old.clusterIP;
      spec.clusterIPs = old.clusterIPs;
    }
    if (!spec.clusterIP) spec.clusterIP = allocateClusterIP(used);
    spec.clusterIPs ??= [spec.clusterIP];
    if (!isHeadless(spec)) {
      spec.ipFamilies ??= ['IPv4'];
      spec.ipFamilyPolicy ??= 'SingleStack';
    }
    spec.internalTrafficPolicy ??= 'Cluster';
  }
  return { ...svc, spec };
}

/** ValidateService's ports rule and the allocator's refusal of an address another Service holds. */
export function serviceCauses(svc: KubeObject, live: KubeObject | undefined, used: Set<string>): Cause[] {
  const spec: Obj = (svc.spec as Obj) ?? {};
  const causes: Cause[] = [];
  if (!(Array.isArray(spec.ports) && spec.ports.length) && !isHeadless(spec) && spec.type !== 'ExternalName')
    causes.push({ type: 'FieldValueRequired', field: 'spec.ports', message: 'Required value' });
  const oldIP = (live?.spec as Obj | undefined)?.clusterIP;
  if (live && oldIP && spec.clusterIP !== oldIP && spec.type !== 'ExternalName')
    causes.push({
      type: 'FieldValueInvalid',
      field: 'spec.clusterIPs[0]',
      message: `Invalid value: ${JSON.stringify(spec.clusterIP ?? '')}: may not change once set`,
    });
  else if (!live && spec.clusterIP && !isHeadless(spec) && used.has(spec.clusterIP))
    causes.push({
      type: 'FieldValueInvalid',
      field: 'spec.clusterIPs',
      message: `Invalid value: []string{${JSON.stringify(spec.clusterIP)}}: failed to allocate IP ${spec.clusterIP}: provided IP is already allocated`,
    });
  return causes;
}
