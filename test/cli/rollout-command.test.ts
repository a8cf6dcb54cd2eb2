/** `gardener-osc rollout status` from a file: the table, YAML and JSON, and every bad input named. */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringifyYaml } from '../../api/index.js';
import { rolloutStatus } from '../../cli/rollout-command.js';
import { encodeRolloutStatus, type PoolRollout } from '../../controllers/rollout/state.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { runMain } from './run-main.js';

const NOW = Date.parse('2026-03-01T10:10:00Z');
const T1 = 'a1b2c3d4e5f6'.padEnd(64, '0');
const T2 = 'f6e5d4c3b2a1'.padEnd(64, '0');

const halted: PoolRollout = {
  target: T1,
  phase: 'Halted',
  startedAt: Date.parse('2026-03-01T10:00:00Z'),
  wave: 1,
  waveStartedAt: Date.parse('2026-03-01T10:00:00Z'),
  lastWaveSize: 1,
  members: [],
  failures: [
    {
      node: 'ip-10-250-1-7',
      reason: 'UnitNotActive',
      message: 'kubelet.service is inactive (dead), 10s after the apply restarted it',
      at: Date.parse('2026-03-01T10:01:00Z'),
    },
  ],
  first: [],
  haltedSince: Date.parse('2026-03-01T10:01:00Z'),
  reason: 'node ip-10-250-1-7, checksum a1b2c3d4e5f6: UnitNotActive: kubelet.service is inactive (dead)',
  updated: 0,
  failed: 1,
  pending: 9,
};
const completed: PoolRollout = {
  target: T2,
  phase: 'Completed',
  startedAt: Date.parse('2026-03-01T09:00:00Z'),
  completedAt: Date.parse('2026-03-01T09:20:00Z'),
  wave: 4,
  lastWaveSize: 4,
  members: [],
  failures: [],
  first: [],
  updated: 6,
  failed: 0,
  pending: 0,
};

describe('gardener-osc rollout status', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rollout-status-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const file = (doc: unknown) => {
    const path = join(dir, 'status.yaml');
    writeFileSync(path, typeof doc === 'string' ? doc : stringifyYaml(doc));
    return path;
  };
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'gardener-node-agent-rollout', namespace: 'shoot--dev--demo' },
    data: encodeRolloutStatus(
      new Map([
        ['worker-b', completed],
        ['worker-a', halted],
      ]),
    ),
  };

  it('shows the halt age as kubectl shows ages: 275d, not 6612h', async () => {
    const out = await rolloutStatus({ file: file(configMap), format: 'table' }, {}, NOW + 6612 * 3_600_000);
    expect(out).to.contain('2026-03-01T10:01:00Z (275d ago)');
  });

  it('prints one row per pool and the failed nodes', async () => {
    const out = await rolloutStatus({ file: file(configMap), format: 'table' }, {}, NOW);
    expect(out).to.equal(
      [
        'POOL       TARGET         PHASE       WAVE   UPDATED   FAILED   PENDING   HALTED SINCE                    REASON',
        'worker-a   a1b2c3d4e5f6   Halted      1      0         1        9         2026-03-01T10:01:00Z (9m ago)   node ip-10-250-1-7, checksum a1b2c3d4e5f6: UnitNotActive: kubelet.service is inactive (dead)',
        'worker-b   f6e5d4c3b2a1   Completed   4      6         0        0         -                               -',
        '',
        'POOL       NODE            REASON          FAILURE   MESSAGE',
        'worker-a   ip-10-250-1-7   UnitNotActive   open      kubelet.service is inactive (dead), 10s after the apply restarted it',
        '',
      ].join('\n'),
    );
  });

  it('prints YAML or JSON per pool, from a ConfigMap or a List holding it', async () => {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [{ kind: 'ConfigMap', metadata: { name: 'other' } }, configMap],
    };
    const json = JSON.parse(await rolloutStatus({ file: file(list), format: 'json' }, {}, NOW));
    expect(Object.keys(json)).to.deep.equal(['worker-a', 'worker-b']);
    expect(json['worker-a']).to.include({ phase: 'Halted', haltedSince: '2026-03-01T10:01:00.000Z' });
    const yaml = await rolloutStatus({ file: file(configMap), format: 'yaml' }, {}, NOW);
    expect(yaml).to.match(/^worker-a:\n {2}failed: 1\n/);
  });

  it('reads the seed with an exec credential plugin kubeconfig, as controller-manager does', async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers.authorization}`);
      if (req.headers.authorization !== 'Bearer exec-token') {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(configMap));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const plugin = join(dir, 'token-plugin.sh');
      writeFileSync(
        plugin,
        `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-token"}}'\n`,
      );
      chmodSync(plugin, 0o755);
      const kubeconfig = join(dir, 'seed-kubeconfig');
      writeFileSync(
        kubeconfig,
        stringifyYaml({
          clusters: [
            {
              name: 'seed',
              cluster: { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
            },
          ],
          users: [
            { name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin } } },
          ],
          contexts: [{ name: 'seed', context: { cluster: 'seed', user: 'u' } }],
          'current-context': 'seed',
        }),
      );
      const out = await rolloutStatus({ shoot: 'shoot--dev--demo', kubeconfig, format: 'table' }, {}, NOW);
      expect(out).to.contain('worker-a').and.to.contain('Halted');
      expect(seen).to.deep.equal([
        '/api/v1/namespaces/shoot--dev--demo/configmaps/gardener-node-agent-rollout Bearer exec-token',
      ]);
    } finally {
      server.close();
    }
  });

  it('names what is wrong: the flags, the file, the status', async () => {
    const wrong = async (o: Parameters<typeof rolloutStatus>[0], env: NodeJS.ProcessEnv = {}) => {
      const e = await rolloutStatus(o, env, NOW).catch((x: Error) => x);
      expect(e).to.be.instanceOf(UsageError);
      return (e as Error).message;
    };
    expect(await wrong({ format: 'table' })).to.equal(
      'give either --shoot NAMESPACE (read from the seed) or --file FILE',
    );
    expect(await wrong({ shoot: 'x', file: 'y', format: 'table' })).to.match(/^give either/);
    expect(await wrong({ shoot: 'shoot--dev--demo', format: 'table' })).to.match(/set \$KUBECONFIG/);
    expect(await wrong({ file: join(dir, 'missing.yaml'), format: 'table' })).to.match(
      /^cannot read --file .*missing\.yaml: /,
    );
    expect(await wrong({ file: file({ kind: 'Secret' }), format: 'table' })).to.match(
      /not the ConfigMap gardener-node-agent-rollout \(kind: "Secret"\)/,
    );
    expect(
      await wrong({
        file: file({ kind: 'ConfigMap', data: { 'worker-a.yaml': 'phase: Sideways\n' } }),
        format: 'table',
      }),
    ).to.match(/^gardener-node-agent-rollout: worker-a\.yaml: target: /);
  });

  it('runs as gardener-osc rollout status: standard input with --file -, exit 2 naming what is wrong, --help with examples', async () => {
    const ok = await runMain(['rollout', 'status', '--file', '-', '-o', 'json'], stringifyYaml(configMap));
    expect(ok.code).to.equal(0);
    expect(Object.keys(JSON.parse(ok.stdout))).to.deep.equal(['worker-a', 'worker-b']);
    const bad = await runMain(['rollout', 'status']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.equal(
      'gardener-osc: give either --shoot NAMESPACE (read from the seed) or --file FILE\n',
    );
    const help = await runMain(['rollout', 'status', '--help']);
    expect(help.stdout).to.contain('Examples:\n  gardener-osc rollout status --shoot shoot--dev--demo');
  });
});
