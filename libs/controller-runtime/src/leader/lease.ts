import { KubeObject } from '@capi/apimachinery';

/** coordination.k8s.io/v1 Lease as JSON. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** metav1.MicroTime wire format: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export type LeaseDecision =
  | { action: 'create'; spec: NonNullable<Lease['spec']> }
  | { action: 'update'; spec: NonNullable<Lease['spec']> }
  | { action: 'wait'; holder: string };

/**
 * Whether `identity` may take or renew the lease now. Expiry is judged on the local clock from when this candidate
 * last saw the record change (like client-go), so clock skew between candidates does not matter.
 */
export function decideLease(args: {
  lease: Lease | undefined;
  identity: string;
  now: number;
  leaseDurationSeconds: number;
  /** Local time at which the current record (holder + renewTime) was first observed. */
  observedAt: number;
}): LeaseDecision {
  const { lease, identity, now, leaseDurationSeconds } = args;
  const fresh = {
    holderIdentity: identity,
    leaseDurationSeconds,
    acquireTime: microTime(now),
    renewTime: microTime(now),
    leaseTransitions: 0,
  };
  if (!lease) return { action: 'create', spec: fresh };
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? '';
  if (holder === identity)
    return { action: 'update', spec: { ...spec, leaseDurationSeconds, renewTime: microTime(now) } };
  const duration = (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
  if (holder !== '' && args.observedAt + duration > now) return { action: 'wait', holder };
  return {
    action: 'update',
    spec: { ...fresh, leaseTransitions: (spec.leaseTransitions ?? 0) + (holder !== '' ? 1 : 0) },
  };
}
