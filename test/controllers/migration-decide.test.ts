import { expect } from 'chai';
import {
  decideMigration,
  type MigrationObservation,
  type MigrationPlan,
  type MigrationStep,
  NO_LEGACY_NODES,
} from '../../controllers/migration/decide.js';
import type { MigrationProgress } from '../../controllers/migration/progress.js';
import type { MigrationPhase } from '../../seed/migration-state/state.js';

const NOW = '2026-01-01T00:00:00Z';
const pending: MigrationProgress = {
  pools: [{ pool: 'a', migrated: 1, total: 2, blocking: [{ node: 'n2', reason: 'no Lease' }] }],
  done: false,
};
const done: MigrationProgress = { pools: [{ pool: 'a', migrated: 2, total: 2, blocking: [] }], done: true };
const at = (phase: 'Legacy' | 'Migrating' | 'CleaningUp' | 'Completed') => ({ phase, since: 'before' });
const record = (phase: MigrationPhase, reason?: string): MigrationStep => ({
  kind: 'record',
  state: { phase, since: NOW, ...(reason ? { reason } : {}) },
});

// Upstream: gardener v1.91.4 pkg/gardenlet/operation/botanist/worker.go.
describe('migration: the one owner of the phase decides', () => {
  const observe = (o: Partial<MigrationObservation>): MigrationObservation => ({
    useGardenerNodeAgent: true,
    state: undefined,
    legacyResourcesExist: false,
    progress: undefined,
    now: NOW,
    ...o,
  });
  const cases: [string, Partial<MigrationObservation>, MigrationPlan][] = [
    [
      'gate off, first seen',
      { useGardenerNodeAgent: false },
      { steps: [record('Legacy')], checkAgain: false },
    ],
    [
      'gate off, Legacy stands',
      { useGardenerNodeAgent: false, state: at('Legacy') },
      { steps: [], checkAgain: false },
    ],
    [
      'gate off after a migration: back to Legacy',
      { useGardenerNodeAgent: false, state: at('Completed') },
      { steps: [record('Legacy')], checkAgain: false },
    ],
    ['gate on, never legacy', {}, { steps: [record('Completed', NO_LEGACY_NODES)], checkAgain: false }],
    [
      'gate on, legacy resources from before, shoot not running yet',
      { legacyResourcesExist: true },
      { steps: [record('Migrating')], checkAgain: true },
    ],
    [
      'gate turned on: Migrating, nodes pending',
      { state: at('Legacy'), progress: pending },
      { steps: [record('Migrating'), { kind: 'report', progress: pending }], checkAgain: true },
    ],
    [
      'Migrating, nodes pending',
      { state: at('Migrating'), progress: pending },
      { steps: [{ kind: 'report', progress: pending }], checkAgain: true },
    ],
    [
      'Migrating, every node reported: CleaningUp recorded before the first delete',
      { state: at('Migrating'), progress: done },
      {
        steps: [
          { kind: 'report', progress: done },
          record('CleaningUp'),
          { kind: 'clean-up' },
          record('Completed'),
          { kind: 'completed' },
        ],
        checkAgain: false,
      },
    ],
    [
      'a restarted process resumes CleaningUp',
      { state: at('CleaningUp') },
      { steps: [{ kind: 'clean-up' }, record('Completed'), { kind: 'completed' }], checkAgain: false },
    ],
    [
      'Completed is never repeated',
      { state: at('Completed'), legacyResourcesExist: true },
      { steps: [], checkAgain: false },
    ],
  ];
  for (const [name, observation, plan] of cases)
    it(name, () => expect(decideMigration(observe(observation))).to.deep.equal(plan));
});
