/**
 * `--containerd` of `run` and `apply`: the containerd a v1.150.0 OSC (`criConfig.containerd`) is
 * configured with. A node's agent knows only `host` (the default at root `/`, none elsewhere); the
 * doubles' entry point adds `recorded:VERSION:FILE`, so an agent process under a test root can
 * apply such an OSC, its containerd restart going to the systemd double.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { type OperatingSystemConfig, parseYaml, stringifyYaml } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1 } from '../../../hack/landscape/ntv18-fixtures.js';
import { CONTAINERD_17_DEFAULT } from '../../../hack/node-agent-doubles/fake-containerd.js';
import { main as nodeMain } from '../../../node-agent/cli/program.js';
import { runCli } from '../support/cli-run.js';
import { useTempDirs } from '../support/harness.js';
import { writeUnreachableAgentConfig } from '../support/unreachable-agent-config.js';

function withContainerd(): OperatingSystemConfig {
  const base = oscV1();
  return {
    ...base,
    spec: {
      ...base.spec,
      criConfig: { name: 'containerd', cgroupDriver: 'systemd', containerd: { sandboxImage: 'pause:3.10' } },
    },
  } as OperatingSystemConfig;
}

describe('gardener-node-agent --containerd', function () {
  this.timeout(30_000);
  const tempDir = useTempDirs();
  let dir: string;
  let root: string;
  let images: string;
  let osc: string;
  let defaults: string;
  const record = () => join(dir, 'systemd.jsonl');
  const configToml = () => join(root, 'etc/containerd/config.toml');
  const apply = (...extra: string[]) =>
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

  beforeEach(() => {
    dir = tempDir('gna-containerd-flag-');
    root = tempDir('gna-containerd-root-');
    images = writeImages(join(dir, 'images'), IMAGE_FILES);
    osc = join(dir, 'osc.yaml');
    writeFileSync(osc, stringifyYaml(withContainerd()));
    defaults = join(dir, 'containerd-config-default.toml');
    writeFileSync(defaults, CONTAINERD_17_DEFAULT);
  });

  it('recorded:VERSION:FILE configures containerd from FILE and restarts it through --systemd', async () => {
    const { code, stdout, stderr } = await apply('--containerd', `recorded:1.7.23~ds2:${defaults}`);
    expect(code, stderr).to.equal(0);
    expect(parseYaml(stdout)).to.include({ outcome: 'applied' });
    const toml = readFileSync(configToml(), 'utf8');
    expect(toml).to.contain('SystemdCgroup = true');
    expect(toml).to.contain('sandbox_image = "pause:3.10"');
    // containerd 1.7's own key, kept from the recorded default: FILE is the base, not a template of ours
    expect(toml).to.contain('[plugins."io.containerd.grpc.v1.cri".cni]');
    const ops = readFileSync(record(), 'utf8').split('\n').filter(Boolean);
    expect(ops).to.include('{"op":"restart","unit":"containerd.service"}');
  });

  it('without it, under a test root, there is no containerd: the apply fails before writing the config', async () => {
    const { code, stderr } = await apply();
    expect(code).to.equal(1);
    expect(stderr).to.contain('this agent was given no containerd to ask');
    expect(existsSync(configToml())).to.equal(false);
  });

  it('exits 2 naming the flag on a spec it does not know or a FILE it cannot read', async () => {
    const unknown = await apply('--containerd', 'fake');
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.contain('--containerd must be "host" or "recorded:VERSION:FILE", not "fake"');
    const noVersion = await apply('--containerd', `recorded:${defaults}`);
    expect(noVersion.code).to.equal(2);
    expect(noVersion.stderr).to.contain('--containerd must be');
    const missing = await apply('--containerd', `recorded:1.7.23:${join(dir, 'missing.toml')}`);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(
      /--containerd "recorded:1\.7\.23:.*missing\.toml": cannot read .*missing\.toml/,
    );
    expect(existsSync(configToml())).to.equal(false);
  });

  it('the agent a node runs knows only the host containerd', async () => {
    const chunks: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        chunks.push(String(chunk));
        callback();
      },
    });
    const io = { stdout: sink, stderr: sink, env: { ...process.env } };
    const code = await nodeMain(
      [
        'apply',
        '--osc',
        osc,
        '--root',
        root,
        '--systemd',
        'systemctl',
        '--images',
        images,
        '--containerd',
        `recorded:1.7.23:${defaults}`,
      ],
      io,
    );
    expect(code).to.equal(2);
    expect(chunks.join('')).to.contain(`--containerd must be "host", not "recorded:1.7.23:${defaults}"`);
    expect(existsSync(configToml())).to.equal(false);
    chunks.length = 0;
    await nodeMain(['apply', '--help'], io);
    expect(chunks.join('')).to.contain('--containerd <spec>').and.not.contain('recorded:');
  });

  it('run exits 2 on a bad spec before starting', async () => {
    const config = writeUnreachableAgentConfig(dir);
    const result = await runCli([
      'run',
      '--config',
      config,
      '--root',
      root,
      '--systemd',
      `record:${record()}`,
      '--containerd',
      'ctr',
    ]);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('--containerd must be "host" or "recorded:VERSION:FILE", not "ctr"');
  });

  for (const command of ['run', 'apply'])
    it(`${command} --help documents it with its default`, async () => {
      const help = await runCli([command, '--help']);
      const text = help.stdout + help.stderr;
      expect(text).to.contain('--containerd <spec>');
      expect(text).to.contain('"recorded:VERSION:FILE"');
      expect(text).to.match(/default: host when --root is \/,\s+else none/);
    });
});
