import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { PATH, parseYaml, stringifyYaml } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1, oscV2, yamlOf } from '../../../hack/landscape/ntv18-fixtures.js';
import { parseRecording } from '../../../hack/node-agent-doubles/recording-systemd.js';
import { computePlan } from '../../../node-agent/planner/compute-plan.js';
import { EMPTY_POLICY } from '../../../node-agent/planner/disruption-policy.js';
import { computeLeastDisruptionPlan } from '../../../node-agent/planner/least-disruption-plan.js';
import { NODE_AGENT_VERSION } from '../../../node-agent/version.js';
import { runCli, spawnCli } from '../support/cli-run.js';
import { snapshotTree, useTempDirs } from '../support/harness.js';

describe('node-agent CLI', function () {
  this.timeout(30_000);
  const tempDir = useTempDirs();
  let dir: string;
  let root: string;
  let images: string;
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  beforeEach(() => {
    dir = tempDir('gna-cli-');
    root = join(dir, 'root');
    mkdirSync(root);
    images = writeImages(join(dir, 'images'), IMAGE_FILES);
  });

  describe('plan', () => {
    it('-o raw prints the Plan from --previous to --next as the applier persists it', async () => {
      const args = [
        'plan',
        '--previous',
        file('a.yaml', yamlOf(oscV1())),
        '--next',
        file('b.yaml', yamlOf(oscV2())),
        '-o',
        'raw',
      ];
      const byDefault = await runCli(args);
      expect(byDefault.code).to.equal(0);
      expect(byDefault.stdout).to.equal(
        stringifyYaml(computeLeastDisruptionPlan(oscV1(), oscV2(), { policy: EMPTY_POLICY })),
      );
      const none = await runCli([...args, '--disruption-policy', 'none']);
      expect(none.code).to.equal(0);
      expect(none.stdout).to.equal(stringifyYaml(computePlan(oscV1(), oscV2())));
      expect(none.stdout).to.not.equal(byDefault.stdout);
    });

    it('without --previous plans a first apply', async () => {
      const { code, stdout } = await runCli(['plan', '--next', file('b.yaml', yamlOf(oscV1())), '-o', 'raw']);
      expect(code).to.equal(0);
      expect(parseYaml(stdout)).to.deep.equal(
        JSON.parse(JSON.stringify(computeLeastDisruptionPlan(undefined, oscV1(), { policy: EMPTY_POLICY }))),
      );
    });

    it('shows the summary with causes first, then decoded diffs; --next - reads standard input', async () => {
      const { code, stdout } = await runCli(
        ['plan', '--previous', file('a.yaml', yamlOf(oscV1())), '--next', '-'],
        {},
        yamlOf(oscV2()),
      );
      expect(code).to.equal(0);
      const lines = stdout.split('\n');
      expect(lines[0]).to.equal(
        'osc: unit2: Restart ← enable, command; ' +
          'unit5: None ← no effective change; ' +
          'unit6: None ← filePaths (filePaths only name what to watch); ' +
          'unit7: Restart ← /changed/file (+1 −1 lines); ' +
          'unit8: Restart ← /sixth/file (+1 −1 lines); ' +
          'unit9: Restart ← /seventh/file (+1 −1 lines); ' +
          'stop unit4 ← enable true → false, drop-in drop (removed); ' +
          'remove unit1 (removed from the OSC); remove /another/file (removed)',
      );
      expect(stdout).to.contain('    changed /changed/file  0750  +1 −1 lines\n');
      expect(stdout).to.contain('      -file5\n      \\ No newline at end of file\n      +changeme\n');
    });

    it('a drop-in among the files: no unit changes, but systemd reloads, and the text says why', async () => {
      const osc = (value: string) =>
        stringifyYaml({
          apiVersion: 'extensions.gardener.cloud/v1alpha1',
          kind: 'OperatingSystemConfig',
          metadata: { name: 'osc' },
          spec: {
            type: 't',
            purpose: 'reconcile',
            files: [
              {
                path: '/etc/systemd/system/containerd.service.d/10-x.conf',
                content: { inline: { encoding: '', data: `[Service]\nEnvironment=${value}\n` } },
              },
            ],
          },
        });
      const { code, stdout } = await runCli([
        'plan',
        '--previous',
        file('a.yaml', osc('A=1')),
        '--next',
        file('b.yaml', osc('A=2')),
      ]);
      expect(code).to.equal(0);
      expect(stdout).to.contain(
        '\n  units: none changed (a daemon-reload for the unit configuration among the files)\n',
      );
      expect(stdout).to.not.contain('units (after a daemon-reload):');
    });

    it('-o json has the same shape as a pool of gardener-osc plan; --exit-code exits 3 on a change', async () => {
      const a = file('a.yaml', yamlOf(oscV1()));
      const json = await runCli([
        'plan',
        '--previous',
        a,
        '--next',
        file('b.yaml', yamlOf(oscV2())),
        '-o',
        'json',
        '--exit-code',
      ]);
      expect(json.code).to.equal(3);
      const view = JSON.parse(json.stdout) as { pools: Record<string, unknown>[] };
      expect(view.pools).to.have.length(1);
      expect(view.pools[0]).to.include({
        name: 'osc',
        change: 'changed',
        changed: true,
        nodeAgentRestart: false,
      });
      expect(view.pools[0]).to.have.keys(
        'name',
        'change',
        'changed',
        'checksum',
        'summary',
        'nodeAgentRestart',
        'daemonReload',
        'units',
        'files',
        'disruption',
      );
      const same = await runCli(['plan', '--previous', a, '--next', a, '--exit-code']);
      expect(same).to.deep.include({ code: 0, stdout: 'osc: unchanged\n' });
      const both = await runCli(['plan', '--previous', '-', '--next', '-']);
      expect(both.code).to.equal(2);
      expect(both.stderr).to.contain('only one option can read standard input');
    });

    it('exits 2 naming the field of an invalid OSC', async () => {
      const bad = oscV1();
      bad.spec.files![0]!.path = 'etc/x';
      const { code, stderr } = await runCli(['plan', '--next', file('b.yaml', yamlOf(bad))]);
      expect(code).to.equal(2);
      expect(stderr).to.contain('spec.files[0].path');
      expect(stderr).to.contain('must be an absolute path');
    });

    it('exits 2 when --next is missing or unreadable, in one line naming the errno', async () => {
      expect((await runCli(['plan'])).code).to.equal(2);
      const { code, stderr } = await runCli(['plan', '--next', join(dir, 'nope.yaml')]);
      expect(code).to.equal(2);
      expect(stderr).to.equal(
        `gardener-node-agent: cannot read --next ${join(dir, 'nope.yaml')}: no such file or directory (ENOENT)\n`,
      );
      const directory = await runCli(['plan', '--next', dir]);
      expect(directory.code).to.equal(2);
      expect(directory.stderr).to.contain('illegal operation on a directory (EISDIR)');
    });
  });

  describe('apply', () => {
    const record = () => join(dir, 'systemd.jsonl');
    const apply = (osc: string, ...extra: string[]) =>
      runCli([
        'apply',
        '--osc',
        osc,
        '--root',
        root,
        `--systemd=record:${record()}`,
        '--images',
        images,
        ...extra,
      ]);

    it('applies an osc.yaml to the root and records systemd calls as JSON lines', async () => {
      const { code, stdout } = await apply(file('osc.yaml', yamlOf(oscV1())));
      expect(code).to.equal(0);
      expect(parseYaml(stdout)).to.deep.equal({
        outcome: 'applied',
        resumed: false,
        steps: { total: 44, run: 44 },
        nodeAgentRestartRequired: false,
      });
      expect(readFileSync(join(root, '/third/file'), 'utf8')).to.equal('file3');
      const lines = readFileSync(record(), 'utf8').split('\n').filter(Boolean);
      expect(lines[0]).to.equal('{"op":"enable","unit":"unit1"}');
      expect(lines).to.include('{"op":"daemon-reload"}');
      expect(lines.at(-1)).to.equal('{"op":"restart","unit":"unit9"}');
      expect(parseRecording(readFileSync(record(), 'utf8'))).to.have.length(19);
    });

    it('--osc - reads the osc.yaml from standard input', async () => {
      const { code, stdout } = await runCli(
        ['apply', '--osc', '-', '--root', root, `--systemd=record:${record()}`, '--images', images],
        {},
        yamlOf(oscV1()),
      );
      expect(code).to.equal(0);
      expect(parseYaml(stdout)).to.include({ outcome: 'applied' });
      expect(readFileSync(join(root, '/third/file'), 'utf8')).to.equal('file3');
    });

    it('applying the same file again is up to date', async () => {
      const osc = file('osc.yaml', yamlOf(oscV1()));
      await apply(osc);
      const { code, stdout } = await apply(osc);
      expect(code).to.equal(0);
      expect(parseYaml(stdout)).to.include({ outcome: 'up-to-date' });
    });

    for (const [what, mutate, field] of [
      [
        'a bad path',
        (o: ReturnType<typeof oscV1>) => (o.spec.files![0]!.path = '/etc/../../x'),
        'spec.files[0].path',
      ],
      [
        'an unknown encoding',
        (o: ReturnType<typeof oscV1>) =>
          ((o.spec.files![0]!.content.inline as { encoding: string }).encoding = 'gz'),
        'spec.files[0].content.inline.encoding',
      ],
      [
        'a schema error',
        (o: ReturnType<typeof oscV1>) =>
          ((o.spec.files![0] as unknown as { permissions: string }).permissions = 'rw-r--r--'),
        'spec.files[0].permissions',
      ],
    ] as const) {
      it(`exits 2 on ${what}, naming the field, and writes nothing`, async () => {
        const osc = oscV1();
        mutate(osc);
        const { code, stderr } = await apply(file('osc.yaml', yamlOf(osc)));
        expect(code).to.equal(2);
        expect(stderr).to.contain(field);
        expect(snapshotTree(root)).to.deep.equal({});
        expect(existsSync(record())).to.equal(false);
      });
    }

    it('exits 2 on YAML that is no OSC at all', async () => {
      const { code, stderr } = await apply(file('osc.yaml', 'kind: [unclosed'));
      expect(code).to.equal(2);
      expect(stderr).to.contain('invalid OperatingSystemConfig');
      expect(snapshotTree(root)).to.deep.equal({});
    });

    it("exits 2 on an osc.yaml that is not UTF-8, with go-yaml's words, and writes nothing", async () => {
      const path = file('osc.yaml', '');
      writeFileSync(
        path,
        Buffer.concat([Buffer.from(yamlOf(oscV1())), Buffer.from('# caf'), Buffer.from([0xe9])]),
      );
      const { code, stderr } = await apply(path);
      expect(code).to.equal(2);
      expect(stderr).to.contain('yaml: incomplete UTF-8 octet sequence');
      expect(snapshotTree(root)).to.deep.equal({});
    });

    it('requires --root, and --systemd unless the root is /', async () => {
      const osc = file('osc.yaml', yamlOf(oscV1()));
      const noRoot = await runCli(['apply', '--osc', osc]);
      expect(noRoot.code).to.equal(2);
      expect(noRoot.stderr).to.contain("required option '--root <dir>'");
      const noSystemd = await runCli(['apply', '--osc', osc, '--root', root, '--images', images]);
      expect(noSystemd.code).to.equal(2);
      expect(noSystemd.stderr).to.contain('--systemd is required');
      expect((await apply(osc, '--systemd', 'dbus')).code).to.equal(2);
      expect(snapshotTree(root)).to.deep.equal({});
    });

    it('exits 1 when an image cannot be had, before writing anything', async () => {
      const osc = oscV1();
      osc.spec.files![1]!.content.imageRef!.image = 'missing-image';
      const before = snapshotTree(root);
      const { code, stderr } = await apply(file('osc.yaml', yamlOf(osc)));
      expect(code).to.equal(1);
      expect(stderr).to.contain('missing-image');
      expect(existsSync(join(root, PATH.nodeAgentBaseDir, 'apply-progress.yaml'))).to.equal(false);
      expect(snapshotTree(root)).to.deep.equal(before);
    });
  });

  describe('NODE_AGENT_REFUSE_HOST_ROOT=1', () => {
    it('is set for every test', () => {
      expect(process.env.NODE_AGENT_REFUSE_HOST_ROOT).to.equal('1');
    });

    for (const [what, rootOf] of [
      ['/', () => '/'],
      ['/./', () => '/./'],
      [
        'a symlink to /',
        () => {
          const link = join(dir, 'slash');
          symlinkSync('/', link);
          return link;
        },
      ],
    ] as const) {
      it(`apply --root ${what} exits 2 before touching anything, even with systemctl`, async () => {
        const osc = oscV1();
        osc.spec.files = [{ path: `${dir}/canary`, content: { inline: { encoding: '', data: 'x' } } }];
        osc.spec.units = [];
        osc.status = {};
        const { code, stderr } = await spawnCli([
          'apply',
          '--osc',
          file('osc.yaml', yamlOf(osc)),
          '--root',
          rootOf(),
          '--systemd',
          'systemctl',
        ]);
        expect(code).to.equal(2);
        expect(stderr).to.contain('refusing to work on the host root');
        expect(existsSync(join(dir, 'canary'))).to.equal(false);
      });
    }
  });

  it('--help lists the commands; --version prints the version; an unknown command exits 2', async () => {
    const help = await runCli(['--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.contain('plan').and.to.contain('apply');
    const version = await runCli(['--version']);
    expect(version.code).to.equal(0);
    expect(version.stdout.trim()).to.equal(NODE_AGENT_VERSION);
    const bad = await runCli(['frobnicate']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain("unknown command 'frobnicate'");
  });

  it('the version equals package.json', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../../package.json'), 'utf8')) as {
      version: string;
    };
    expect(NODE_AGENT_VERSION).to.equal(pkg.version);
  });

  it('runs as a program (npx tsx node-agent/cli/main.ts) with the right exit codes', async () => {
    const ok = await spawnCli(['plan', '--next', file('b.yaml', yamlOf(oscV1())), '-o', 'raw']);
    expect(ok.code).to.equal(0);
    expect(ok.stdout).to.contain('daemonReload: true');
    expect((await spawnCli(['apply', '--osc', 'x'])).code).to.equal(2);
  });
});
