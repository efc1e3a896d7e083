import type { MachineSet } from '@capi/api';
import { machineDeployment, machineSet } from '../testing/fixtures';
import type { MachineSetCoverage } from './can-update';
import { assessInPlaceOnly } from './rollout-policy';

const NOW = new Date('2026-03-01T00:00:00Z');
const coverage = (over: Partial<MachineSetCoverage>): MachineSetCoverage => ({
  canUpdate: false,
  updaters: [],
  noUpdaters: false,
  uncovered: [],
  asked: [],
  reasons: [],
  ...over,
});

describe('assessInPlaceOnly', () => {
  const md = machineDeployment({ version: 'v1.31.0' });
  const current = machineSet('new', { version: 'v1.31.0', replicas: 0 });
  const desiredNewMS = (c: MachineSet | undefined) => c ?? current;

  it('holds back an old MachineSet the updaters do not cover, naming the fields and the updaters asked', async () => {
    const answer = coverage({
      uncovered: [{ object: 'MachineSet', fields: ['spec.template.spec.version'] }],
      asked: ['h.in-place'],
    });
    const seen: string[] = [];
    const r = await assessInPlaceOnly({
      md,
      machineSets: [machineSet('old', { replicas: 3 }), current],
      now: NOW,
      desiredNewMS,
      coverage: async (o, n) => (seen.push(`${o.metadata.name}->${n.metadata.name}`), answer),
    });
    expect(seen).toEqual(['old->new']);
    expect([...r.names]).toEqual(['old']);
    expect(r.blocked).toEqual([
      { reason: 'NotCoveredByUpdaters', subject: 'MachineSet old', uncovered: answer.uncovered, asked: ['h.in-place'] },
    ]);
  });

  it('lets a covered old MachineSet go; skips empty ones; no updaters or gate off is NoUpdaters', async () => {
    const sets = [
      machineSet('old', { replicas: 3 }),
      machineSet('empty', { replicas: 0, version: 'v1.29.0' }),
      current,
    ];
    const covered = await assessInPlaceOnly({
      md,
      machineSets: sets,
      now: NOW,
      desiredNewMS,
      coverage: async () => coverage({ canUpdate: true }),
    });
    expect(covered.blocked).toEqual([]);
    const gateOff = await assessInPlaceOnly({ md, machineSets: sets, now: NOW, desiredNewMS });
    expect(gateOff.blocked).toEqual([{ reason: 'NoUpdaters', subject: 'MachineSet old' }]);
    const none = await assessInPlaceOnly({
      md,
      machineSets: sets,
      now: NOW,
      desiredNewMS,
      coverage: async () => coverage({ noUpdaters: true }),
    });
    expect(none.blocked).toEqual([{ reason: 'NoUpdaters', subject: 'MachineSet old' }]);
  });

  it('an expired spec.rollout.after is a replacement by definition; nothing is asked for it', async () => {
    const after = machineDeployment({ version: 'v1.31.0', rolloutAfter: '2026-02-01T00:00:00Z' });
    const r = await assessInPlaceOnly({
      md: after,
      machineSets: [machineSet('same', { version: 'v1.31.0', created: '2026-01-01T00:00:00Z' })],
      now: NOW,
      desiredNewMS: () => machineSet('fresh', { version: 'v1.31.0', replicas: 0 }),
      coverage: async () => {
        throw new Error('not asked');
      },
    });
    expect(r.blocked).toEqual([
      {
        reason: 'ReplacementRequested',
        subject: 'MachineSet same',
        why: 'spec.rollout.after (2026-02-01T00:00:00Z) asks for a replacement',
      },
    ]);
  });
});
