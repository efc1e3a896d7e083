// The built-in schemas as the merge engine sees them: two appliers owning different items of keyed lists.
import { applyIntent } from '../merge';
import { builtinSchema } from './builtin';

const NOW = '2026-12-02T13:00:00Z';
const node = (status: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n1' },
  status,
});

describe('built-in schemas with server-side apply', () => {
  const schema = builtinSchema('v1', 'Node');

  it('merges Node status.conditions and status.addresses by type across managers', () => {
    const created = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'u1' } } as any;
    const first = applyIntent({
      live: created,
      intent: node({
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      }) as any,
      manager: 'kubelet',
      force: false,
      schema,
      subresource: 'status',
      now: NOW,
    });
    const second = applyIntent({
      live: first,
      intent: node({
        conditions: [{ type: 'NetworkUnavailable', status: 'False' }],
        addresses: [{ type: 'Hostname', address: 'n1' }],
      }) as any,
      manager: 'cni',
      force: false,
      schema,
      subresource: 'status',
      now: NOW,
    });
    const status = second.status as any;
    expect(status.conditions.map((c: any) => c.type).sort()).toEqual(['NetworkUnavailable', 'Ready']);
    expect(status.addresses.map((a: any) => a.type).sort()).toEqual(['Hostname', 'InternalIP']);
  });

  it('merges Node spec.taints by key and effect', () => {
    const base = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } as const;
    const a = applyIntent({
      live: undefined,
      intent: { ...base, spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } } as any,
      manager: 'a',
      force: false,
      schema,
      now: NOW,
    });
    const b = applyIntent({
      live: a,
      intent: { ...base, spec: { taints: [{ key: 'k', effect: 'NoExecute' }] } } as any,
      manager: 'b',
      force: false,
      schema,
      now: NOW,
    });
    expect((b.spec as any).taints).toHaveLength(2);
  });
});
