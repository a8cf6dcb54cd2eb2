/**
 * Every unit a node runs passes `systemd-analyze verify`, checked unfiltered: any output on stdout
 * or stderr fails (its exit code alone lets unknown keys and unparsable values through). Each OSC
 * is applied into its own temp root R (test/support/systemd-verify-root.ts) and verified with one
 * `systemd-analyze verify --man=no --generators=no --root R <units...>` call. systemd is never
 * booted and never pointed at this machine's root.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  FEATURE_GATE_USE_GARDENER_NODE_AGENT,
  LABEL,
  NODE_AGENT_UNIT_CONTENT,
  type OperatingSystemConfig,
  type OscFile,
  type OscUnit,
  PATH,
  parseYaml,
  UNIT,
} from '../../api/index.js';
import { DEFAULT_NOW, render } from '../../cli/render-command.js';
import {
  createSystemdVerifier,
  describeVerify,
  SYSTEMD_ANALYZE_INSTALL_HINT,
  type SystemdVerifier,
  type VerifyInput,
} from '../support/systemd-verify-root.js';

const EXAMPLE_CLUSTER = join(import.meta.dirname, '../../examples/cluster.yaml');

let verifier: SystemdVerifier | undefined;

function verify(input: VerifyInput) {
  verifier ??= createSystemdVerifier();
  return verifier.verify(input);
}

/** Verifies and returns the findings with the temp root shown as `R`. */
function findings(input: VerifyInput): { output: string; message: string } {
  const result = verify(input);
  return { output: result.output.replaceAll(result.root.root, 'R'), message: describeVerify(result) };
}

/** Nothing on stdout or stderr (the exit code alone lets unknown keys through), and exit 0. */
function expectClean(input: VerifyInput): readonly string[] {
  const result = verify(input);
  expect(result.output, describeVerify(result)).to.equal('');
  expect(result.status, describeVerify(result)).to.equal(0);
  return result.root.units;
}

function examplePoolNames(): string[] {
  const cluster = parseYaml(readFileSync(EXAMPLE_CLUSTER, 'utf8')) as {
    spec: { shoot: { spec: { provider: { workers: { name: string }[] } } } };
  };
  return cluster.spec.shoot.spec.provider.workers.map((w) => w.name);
}

/** The example's OSCs for one gate, or the error rendering threw (reported by a test, not at load). */
function renderOscs(useGardenerNodeAgent: boolean): OperatingSystemConfig[] | Error {
  try {
    return render({
      target: 'seed',
      now: DEFAULT_NOW,
      featureGates: `${FEATURE_GATE_USE_GARDENER_NODE_AGENT}=${useGardenerNodeAgent}`,
    }).objects.filter((o) => o.kind === 'OperatingSystemConfig') as unknown as OperatingSystemConfig[];
  } catch (e) {
    return e as Error;
  }
}

const script = (path: string, mode: number): OscFile => ({
  path,
  permissions: mode,
  content: { inline: { encoding: '', data: '#!/bin/sh\nexit 0\n' } },
});

describe('systemd-analyze verify of every rendered unit', function () {
  this.slow(2000);
  after(() => {
    verifier?.dispose();
    verifier = undefined;
  });

  describe('the harness', () => {
    it('has systemd-analyze (install: apt-get install -y systemd; systemd is never started)', () => {
      const run = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
      if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT')
        expect.fail(`systemd-analyze is not installed; install it with: ${SYSTEMD_ANALYZE_INSTALL_HINT}`);
      expect(run.status, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^systemd \d+/);
    });

    it('prints nothing for a clean unit with dependencies, drop-in and script (the baseline)', () => {
      expectClean({
        units: [
          {
            name: 'clean.service',
            content:
              '[Unit]\nDescription=clean\nAfter=network-online.target containerd.service\nWants=network-online.target\n' +
              '[Service]\nEnvironmentFile=/etc/environment\nExecStartPre=-/bin/sh -c true\nExecStart=/opt/bin/clean\n' +
              '[Install]\nWantedBy=multi-user.target\n',
            dropIns: [{ name: '10-limits.conf', content: '[Service]\nLimitNOFILE=65536\n' }],
          },
        ],
        files: [script('/opt/bin/clean', 0o755)],
      });
    });

    it('reports a bad key, a bad value, a bad drop-in and a script that is not executable', () => {
      const bad = findings({
        units: [
          {
            name: 'bad.service',
            content: '[Service]\nExecStart=/opt/bin/bad\nBogus=1\nRestart=sometimes\n',
            dropIns: [{ name: '10-bad.conf', content: '[Service]\nFoo=bar\n' }],
          },
        ],
        files: [script('/opt/bin/bad', 0o644)],
      });
      // systemd 252 says, line by line: `R/etc/systemd/system/bad.service:3: Unknown key 'Bogus' in
      // section [Service], ignoring.`, `...bad.service:4: Failed to parse service restart specifier,
      // ignoring: sometimes`, `...bad.service.d/10-bad.conf:2: Unknown key 'Foo' in section [Service],
      // ignoring.`, `bad.service: Command /opt/bin/bad is not executable: Permission denied`; other
      // versions word them differently, so each line is matched by where it points and what it names.
      const lines = bad.output.split('\n').filter((line) => line !== '');
      const expected = [
        /^R\/etc\/systemd\/system\/bad\.service:3: .*\bBogus\b/,
        /^R\/etc\/systemd\/system\/bad\.service:4: .*\bsometimes\b/,
        /^R\/etc\/systemd\/system\/bad\.service\.d\/10-bad\.conf:2: .*\bFoo\b/,
        /^bad\.service: .*\/opt\/bin\/bad is not executable/,
      ];
      expect(lines, bad.message).to.have.length(expected.length);
      expected.forEach((pattern, i) => {
        expect(lines[i], bad.message).to.match(pattern);
      });
    });
  });

  const pools = examplePoolNames();
  for (const gate of [true, false]) {
    describe(`the example, ${FEATURE_GATE_USE_GARDENER_NODE_AGENT}=${gate}`, () => {
      const oscs = renderOscs(gate);
      if (oscs instanceof Error) {
        it('renders', () => {
          throw oscs;
        });
        return;
      }

      it(`has a provision and a reconcile OSC for each pool (${pools.join(', ')})`, () => {
        const byPool = (pool: string) =>
          oscs
            .filter((o) => o.metadata.labels?.[LABEL.workerPool] === pool)
            .map((o) => o.spec.purpose)
            .sort();
        for (const pool of pools) expect(byPool(pool), pool).to.deep.equal(['provision', 'reconcile']);
        expect(oscs).to.have.length(2 * pools.length);
      });

      for (const osc of oscs) {
        it(`${osc.metadata.name} (${osc.spec.purpose}): every unit verifies without a word`, () => {
          const units: readonly OscUnit[] = osc.spec.units ?? [];
          expect(units, 'units').to.not.be.empty;
          const verified = expectClean(osc.spec);
          expect(verified).to.include.members(units.map((u) => u.name));
        });
      }
    });
  }

  it(`the node agent's own unit (NODE_AGENT_UNIT_CONTENT, as bootstrap writes it) verifies without a word`, () => {
    expect(NODE_AGENT_UNIT_CONTENT).to.contain(`ExecStart=${PATH.nodeAgentBinary} `);
    expectClean({ units: [{ name: UNIT.nodeAgent, content: NODE_AGENT_UNIT_CONTENT }] });
  });
});
