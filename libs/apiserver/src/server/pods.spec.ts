import type { KubeObject } from '@capi/apimachinery';
import { podCauses, podOnCreate, podQos } from './pods';

const c = (resources?: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: `c${Math.random()}`,
  image: 'i',
  ...(resources ? { resources } : {}),
  ...extra,
});

describe('podQos (kube qos.go ComputePodQOS)', () => {
  it.each([
    ['no resources', { containers: [c()] }, 'BestEffort'],
    ['other resources only', { containers: [c({ limits: { 'nvidia.com/gpu': '1' } })] }, 'BestEffort'],
    [
      'limits = requests for cpu and memory',
      { containers: [c({ limits: { cpu: '1', memory: '1Gi' } })] },
      'Guaranteed',
    ],
    [
      'explicit equal requests',
      { containers: [c({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } })] },
      'Guaranteed',
    ],
    ['cpu only', { containers: [c({ limits: { cpu: '1' } })] }, 'Burstable'],
    [
      'requests below limits',
      { containers: [c({ requests: { cpu: '500m' }, limits: { cpu: '1', memory: '1Gi' } })] },
      'Burstable',
    ],
    ['one container without', { containers: [c({ limits: { cpu: '1', memory: '1Gi' } }), c()] }, 'Burstable'],
    [
      'an init container counts',
      { initContainers: [c({ requests: { memory: '1Mi' } })], containers: [c()] },
      'Burstable',
    ],
    [
      'pod-level resources decide',
      { resources: { limits: { cpu: '1', memory: '1Gi' } }, containers: [c()] },
      'Guaranteed',
    ],
  ])('%s', (_n, spec, qos) => {
    expect(podQos(spec)).toBe(qos);
  });
});

describe('podOnCreate', () => {
  it('drops the status sent: Pending with the QoS class', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [c()] },
      status: { phase: 'Running', podIP: '1.2.3.4' },
    };
    expect(podOnCreate(pod as KubeObject).status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });
});

describe('podCauses', () => {
  const pod = (spec: Record<string, unknown>) =>
    ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec }) as KubeObject;
  const fields = (p: KubeObject, live?: KubeObject, sub?: string) =>
    podCauses(p, live, sub).map((x) => `${x.field} ${x.type}`);

  it('requires containers, names (unique across init containers) and images', () => {
    expect(fields(pod({}))).toEqual(['spec.containers FieldValueRequired']);
    expect(
      fields(
        pod({
          initContainers: [{ name: 'a', image: 'i' }],
          containers: [{ name: 'a', image: 'i' }, { image: 'i' }, { name: 'b' }],
        }),
      ),
    ).toEqual([
      'spec.containers[0].name FieldValueDuplicate',
      'spec.containers[1].name FieldValueRequired',
      'spec.containers[2].image FieldValueRequired',
    ]);
  });

  it('an update may change images, the deadline, the grace period and add tolerations; nothing else', () => {
    const t1 = { key: 'a', operator: 'Exists' };
    const live = pod({ containers: [{ name: 'a', image: 'i:1' }], tolerations: [t1] });
    const ok = (spec: Record<string, unknown>) => expect(fields(pod(spec), live)).toEqual([]);
    ok({ containers: [{ name: 'a', image: 'i:2' }], tolerations: [t1] });
    ok({
      containers: [{ name: 'a', image: 'i:1' }],
      tolerations: [t1, { key: 'b', operator: 'Exists' }],
      activeDeadlineSeconds: 5,
    });
    ok({
      containers: [{ name: 'a', image: 'i:1' }],
      tolerations: [{ operator: 'Exists', key: 'a' }],
      terminationGracePeriodSeconds: 1,
    });
    const bad = (spec: Record<string, unknown>) =>
      expect(fields(pod(spec), live)).toEqual(['spec FieldValueForbidden']);
    bad({ containers: [{ name: 'a', image: 'i:1' }], tolerations: [] });
    bad({ containers: [{ name: 'a', image: 'i:1', command: ['x'] }], tolerations: [t1] });
    bad({
      containers: [
        { name: 'a', image: 'i:1' },
        { name: 'b', image: 'i' },
      ],
      tolerations: [t1],
    });
    bad({ containers: [{ name: 'a', image: 'i:1' }], tolerations: [t1], nodeName: 'n' });
    // The status subresource does not touch the spec.
    expect(fields(pod({ containers: [{ name: 'a', image: 'i:1' }] }), live, 'status')).toEqual([]);
  });
});
