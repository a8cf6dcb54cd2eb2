import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { NODE_AGENT_UNIT_CONTENT, NODE_AGENT_UNIT_CONTENT_V150, PATH } from '../../../api/index.js';
import { MemoryDisk } from '../../../hack/node-agent-doubles/memory-disk.js';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { parseRecording } from '../../../hack/node-agent-doubles/recording-systemd.js';
import { runBootstrap } from '../../../node-agent/bootstrap/bootstrap.js';
import { runCli } from '../support/cli-run.js';
import { diskLine, writeDiskStubs } from '../support/disk-stubs.js';
import { fileAt, snapshotTree, useTempDirs } from '../support/harness.js';

/**
 * The unit file of gardener v1.91.4 pkg/nodeagent/bootstrap/bootstrap.go, literally (no trailing newline).
 */
const UNIT_FILE = `[Unit]
Description=Gardener Node Agent
After=network-online.target

[Service]
LimitMEMLOCK=infinity
ExecStart=/opt/bin/gardener-node-agent --config=/var/lib/gardener-node-agent/config.yaml
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target`;

const ACTIONS = [
  { op: 'daemon-reload' },
  { op: 'enable', unit: 'gardener-node-agent.service' },
  { op: 'start', unit: 'gardener-node-agent.service' },
  { op: 'disable', unit: 'gardener-node-init.service' },
];

/**
 * A complete v1.91 config (bootstrap validates like run, gardener v1.91.4
 * pkg/nodeagent/apis/config/validation/validation.go).
 */
function configYaml(extra = ''): string {
  return `apiVersion: nodeagent.config.gardener.cloud/v1alpha1
kind: NodeAgentConfiguration
apiServer:
  server: https://api.example.org
  caBundle: Y2EtYnVuZGxl
${extra}controllers:
  operatingSystemConfig:
    secretName: gardener-node-agent-worker-abcde
    kubernetesVersion: 1.28.2
    syncJitterPeriod: 5m0s
  token:
    syncConfigs:
    - secretName: gardener-node-agent
      path: /var/lib/gardener-node-agent/credentials/token
    syncPeriod: 12h0m0s
`;
}

// Upstream: gardener v1.91.4 pkg/nodeagent/bootstrap/bootstrap.go (N-TV-16).
describe('node-agent bootstrap', () => {
  const tempDir = useTempDirs();
  let dir: string;
  let root: string;

  beforeEach(() => {
    dir = tempDir('gna-bootstrap-');
    root = join(dir, 'root');
    mkdirSync(root);
  });

  describe('runBootstrap', () => {
    it('without data volume: the unit file (0644, exact bytes) and the four systemd actions in order', async () => {
      const systemd = new MemorySystemd();
      const disk = new MemoryDisk();
      await runBootstrap({ root, config: {}, systemd, disk });
      expect(NODE_AGENT_UNIT_CONTENT).to.equal(UNIT_FILE);
      expect(fileAt(root, '/etc/systemd/system/gardener-node-agent.service')).to.deep.equal({
        mode: '0644',
        content: UNIT_FILE,
      });
      expect(systemd.ops).to.deep.equal(ACTIONS);
      expect(disk.formatted).to.deep.equal([]);
      expect(Object.keys(snapshotTree(root))).to.deep.equal([
        'etc',
        'etc/systemd',
        'etc/systemd/system',
        'etc/systemd/system/gardener-node-agent.service',
      ]);
    });

    it('with kubeletDataVolumeSize 1234: formats first, then the same unit file and actions', async () => {
      const order: string[] = [];
      const systemd = new MemorySystemd((op) => {
        order.push(op.op);
        return undefined;
      });
      const disk = {
        formatKubeletDataVolume: async (size: number) => {
          order.push(`format ${size}`);
          expect(existsSync(join(root, PATH.systemdUnitDir))).to.equal(false);
        },
      };
      await runBootstrap({ root, config: { bootstrap: { kubeletDataVolumeSize: 1234 } }, systemd, disk });
      expect(order).to.deep.equal(['format 1234', 'daemon-reload', 'enable', 'start', 'disable']);
      expect(fileAt(root, '/etc/systemd/system/gardener-node-agent.service').content).to.equal(UNIT_FILE);
      expect(systemd.ops).to.deep.equal(ACTIONS);
    });

    it('a failing formatter aborts before anything else happens', async () => {
      const systemd = new MemorySystemd();
      const disk = new MemoryDisk(new Error('failed executing formatter bash script: exit status 1'));
      let error: Error | undefined;
      await runBootstrap({
        root,
        config: { bootstrap: { kubeletDataVolumeSize: 1234 } },
        systemd,
        disk,
      }).catch((e: Error) => {
        error = e;
      });
      expect(error?.message).to.contain('failed executing formatter bash script');
      expect(systemd.ops).to.deep.equal([]);
      expect(snapshotTree(root)).to.deep.equal({});
    });

    it('runs again after a failure: the unit file is replaced (mode fixed), the actions repeat', async () => {
      const unit = join(root, '/etc/systemd/system/gardener-node-agent.service');
      mkdirSync(join(root, PATH.systemdUnitDir), { recursive: true });
      writeFileSync(unit, '#old');
      chmodSync(unit, 0o600);
      const failing = new MemorySystemd((op) => (op.op === 'start' ? new Error('start failed') : undefined));
      let error: Error | undefined;
      await runBootstrap({ root, config: {}, systemd: failing }).catch((e: Error) => {
        error = e;
      });
      expect(error?.message).to.equal('start failed');
      expect(failing.ops.map((o) => o.op)).to.deep.equal(['daemon-reload', 'enable', 'start']);
      const systemd = new MemorySystemd();
      await runBootstrap({ root, config: {}, systemd });
      expect(fileAt(root, '/etc/systemd/system/gardener-node-agent.service')).to.deep.equal({
        mode: '0644',
        content: UNIT_FILE,
      });
      expect(systemd.ops).to.deep.equal(ACTIONS);
      expect(readdirSync(join(root, PATH.systemdUnitDir))).to.deep.equal(['gardener-node-agent.service']);
    });

    it('kubeletDataVolumeSize without a Disk is an error, not a silent skip', async () => {
      let error: Error | undefined;
      await runBootstrap({
        root,
        config: { bootstrap: { kubeletDataVolumeSize: 1234 } },
        systemd: new MemorySystemd(),
      }).catch((e: Error) => {
        error = e;
      });
      expect(error?.message).to.contain('no Disk');
    });
  });

  describe('gardener-node-agent bootstrap', () => {
    const record = () => join(dir, 'systemd.jsonl');
    const config = (text: string) => {
      const path = join(dir, 'config.yaml');
      writeFileSync(path, text);
      return path;
    };

    it('bootstraps a root: unit file, actions, the log lines', async () => {
      const { code, stderr, stdout } = await runCli([
        'bootstrap',
        '--config',
        config(configYaml()),
        '--root',
        root,
        `--systemd=record:${record()}`,
      ]);
      expect(code, stderr).to.equal(0);
      expect(stdout).to.equal('');
      expect(fileAt(root, '/etc/systemd/system/gardener-node-agent.service')).to.deep.equal({
        mode: '0644',
        content: UNIT_FILE,
      });
      expect(parseRecording(readFileSync(record(), 'utf8'))).to.deep.equal(ACTIONS);
      const messages = stderr
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { msg: string; version?: string });
      expect(messages[0]).to.include({ msg: 'Starting gardener-node-init' });
      expect(messages.map((m) => m.msg)).to.include(`FLAG: --root=${root}`);
      expect(messages.at(-1)?.msg).to.equal('Bootstrap procedure finished, terminating');
    });

    it("run as v1.150's init.sh runs it (--config-dir): writes v1.150's unit, which starts the agent with --config-dir", async () => {
      const configDir = join(dir, 'config-dir');
      mkdirSync(configDir);
      writeFileSync(join(configDir, 'config-v1.150.0.yaml'), configYaml());
      const { code, stderr } = await runCli([
        'bootstrap',
        `--config-dir=${configDir}`,
        '--root',
        root,
        `--systemd=record:${record()}`,
      ]);
      expect(code, stderr).to.equal(0);
      const unit = fileAt(root, '/etc/systemd/system/gardener-node-agent.service');
      expect(unit).to.deep.equal({ mode: '0644', content: NODE_AGENT_UNIT_CONTENT_V150 });
      expect(unit?.content).to.contain(
        'ExecStart=/opt/bin/gardener-node-agent --config-dir=/var/lib/gardener-node-agent\n',
      );
      expect(parseRecording(readFileSync(record(), 'utf8'))).to.deep.equal(ACTIONS);
    });

    it('reads <root>/var/lib/gardener-node-agent/config.yaml without --config; text logs from the config', async () => {
      mkdirSync(join(root, PATH.nodeAgentBaseDir), { recursive: true });
      writeFileSync(join(root, PATH.nodeAgentConfig), configYaml('logFormat: text\n'));
      const { code, stderr } = await runCli(['bootstrap', '--root', root, `--systemd=record:${record()}`]);
      expect(code, stderr).to.equal(0);
      expect(stderr).to.match(/ INFO gardener-node-agent: Bootstrap procedure finished, terminating\n$/);
    });

    it('refuses the host root under NODE_AGENT_REFUSE_HOST_ROOT=1 (the default --root /) before touching anything', async () => {
      for (const args of [[], ['--root', '/'], ['--root', join(root, '..', '..', '..', '..', '..', '..')]]) {
        const { code, stderr } = await runCli(['bootstrap', '--config', '/nonexistent', ...args], {
          NODE_AGENT_REFUSE_HOST_ROOT: '1',
        });
        expect(code).to.equal(2);
        expect(stderr).to.contain('refusing to work on the host root');
      }
      expect(existsSync(record())).to.equal(false);
    });

    it('exits 2 naming the field of an invalid config; nothing is written', async () => {
      const bad = configYaml().replace('kubernetesVersion: 1.28.2', 'kubernetesVersion: 1.2.3');
      const { code, stderr } = await runCli([
        'bootstrap',
        '--config',
        config(bad),
        '--root',
        root,
        `--systemd=record:${record()}`,
      ]);
      expect(code).to.equal(2);
      expect(stderr).to.contain('controllers.operatingSystemConfig.kubernetesVersion');
      expect(snapshotTree(root)).to.deep.equal({});
      expect(existsSync(record())).to.equal(false);
    });

    it('exits 2 for a missing config, for a missing --systemd and for kubeletDataVolumeSize 0', async () => {
      const missing = await runCli(['bootstrap', '--root', root, `--systemd=record:${record()}`]);
      expect(missing.code).to.equal(2);
      expect(missing.stderr).to.contain('cannot read --config');
      const noSystemd = await runCli(['bootstrap', '--config', config(configYaml()), '--root', root]);
      expect(noSystemd.code).to.equal(2);
      expect(noSystemd.stderr).to.contain('--systemd is required');
      const zero = await runCli([
        'bootstrap',
        '--config',
        config(configYaml('bootstrap:\n  kubeletDataVolumeSize: 0\n')),
        '--root',
        root,
        `--systemd=record:${record()}`,
        `--disk=record:${join(dir, 'disk.jsonl')}`,
      ]);
      expect(zero.code).to.equal(2);
      expect(zero.stderr).to.contain('bootstrap.kubeletDataVolumeSize');
      expect(snapshotTree(root)).to.deep.equal({});
    });

    it('with kubeletDataVolumeSize and a root other than /, --disk must be given', async () => {
      const { code, stderr } = await runCli([
        'bootstrap',
        '--config',
        config(configYaml('bootstrap:\n  kubeletDataVolumeSize: 1234\n')),
        '--root',
        root,
        `--systemd=record:${record()}`,
      ]);
      expect(code).to.equal(2);
      expect(stderr).to.contain('--disk is required');
      expect(snapshotTree(root)).to.deep.equal({});
    });

    it('with kubeletDataVolumeSize 1234 and --disk=script: the formatter runs (stub disk tools), then the rest', async () => {
      const stubs = writeDiskStubs(tempDir('gna-stubs-'));
      const { code, stderr } = await runCli(
        [
          'bootstrap',
          '--config',
          config(configYaml('bootstrap:\n  kubeletDataVolumeSize: 1234\n')),
          '--root',
          root,
          `--systemd=record:${record()}`,
          '--disk=script',
        ],
        stubs.env({ disks: [diskLine('sda', 4096), diskLine('sdb', 1234)] }),
      );
      expect(code, stderr).to.equal(0);
      expect(
        stubs
          .calls()
          .find(([name]) => name === 'mkfs.ext4')
          ?.at(-1),
      ).to.equal('/dev/sdb');
      expect(parseRecording(readFileSync(record(), 'utf8'))).to.deep.equal(ACTIONS);
      expect(snapshotTree(root)).to.deep.include({
        'var/lib/gardener-node-agent/tmp': { type: 'dir', mode: '0700' },
      });
      expect(readdirSync(join(root, PATH.nodeAgentTempDir))).to.deep.equal([]);
    });

    it('a failing formatter exits 1 with its message; no unit file, no systemd calls', async () => {
      const stubs = writeDiskStubs(tempDir('gna-stubs-'));
      const { code, stderr } = await runCli(
        [
          'bootstrap',
          '--config',
          config(configYaml('bootstrap:\n  kubeletDataVolumeSize: 1234\n')),
          '--root',
          root,
          `--systemd=record:${record()}`,
          '--disk=script',
        ],
        stubs.env({ disks: [diskLine('sda', 4096)] }),
      );
      expect(code).to.equal(1);
      expect(stderr).to.contain(
        'gardener-node-agent: failed executing formatter bash script: exit status 1 (output: "Matching kubelet data device by size : 1234\\nNo kubelet data device found\\n")',
      );
      expect(existsSync(record())).to.equal(false);
      expect(existsSync(join(root, PATH.systemdUnitDir))).to.equal(false);
    });

    it('--disk=record:FILE records the request instead of formatting', async () => {
      const disk = join(dir, 'disk.jsonl');
      const { code, stderr } = await runCli([
        'bootstrap',
        '--config',
        config(configYaml('bootstrap:\n  kubeletDataVolumeSize: 53687091200\n')),
        '--root',
        root,
        `--systemd=record:${record()}`,
        `--disk=record:${disk}`,
      ]);
      expect(code, stderr).to.equal(0);
      expect(readFileSync(disk, 'utf8')).to.equal('{"op":"format-kubelet-data-volume","size":53687091200}\n');
    });
  });
});
