import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseYaml } from '../../../api/index.js';
import { yamlOf } from '../../../hack/landscape/ntv18-fixtures.js';
import { parseRecording } from '../../../hack/node-agent-doubles/recording-systemd.js';
import { runCli } from '../support/cli-run.js';
import { useTempDirs } from '../support/harness.js';
import { driftOsc } from './drift-fixture.js';

describe('node-agent drift: plan --root shows it, apply of the same osc.yaml repairs it', () => {
  const tempDir = useTempDirs();
  let root: string;
  let oscFile: string;
  let record: string;
  let images: string;
  const at = (path: string) => join(root, path);
  const apply = (...extra: string[]) =>
    runCli([
      'apply',
      '--osc',
      oscFile,
      '--root',
      root,
      `--systemd=record:${record}`,
      '--images',
      images,
      ...extra,
    ]);
  const ops = () =>
    parseRecording(readFileSync(record, 'utf8')).map((o) => ('unit' in o ? `${o.op} ${o.unit}` : o.op));

  beforeEach(async () => {
    root = tempDir('gna-drift-cli-');
    images = tempDir('gna-images-');
    const dir = tempDir('gna-drift-cli-files-');
    oscFile = join(dir, 'osc.yaml');
    record = join(dir, 'systemd.jsonl');
    writeFileSync(oscFile, yamlOf(driftOsc()));
    expect((await apply()).code).to.equal(0);
  });

  it('a node without drift: plan says so, apply is up to date as before', async () => {
    const plan = await runCli(['plan', '--root', root, '--next', oscFile]);
    expect(plan.stdout).to.match(/^Drift: none/);
    expect(plan.stdout).to.contain('unchanged');
    const again = parseYaml((await apply()).stdout) as Record<string, unknown>;
    expect(again).to.deep.equal({
      outcome: 'up-to-date',
      resumed: false,
      steps: { total: 0, run: 0 },
      nodeAgentRestartRequired: false,
    });
  });

  it('plan lists each drift with its action and plans the repair; apply runs it, restarting only the owners', async () => {
    writeFileSync(at('var/lib/kubelet/config/kubelet'), 'edited\n');
    chmodSync(at('var/lib/kubelet/ca.crt'), 0o644);
    writeFileSync(at('etc/motd'), 'mine\n');
    const plan = await runCli(['plan', '--root', root, '--next', oscFile, '--exit-code']);
    expect(plan.code).to.equal(3);
    expect(plan.stdout).to.contain('Drift: 3 difference(s)');
    expect(plan.stdout).to.match(/Repair +file \/var\/lib\/kubelet\/config\/kubelet: content/);
    expect(plan.stdout).to.match(
      /Repair +file \/var\/lib\/kubelet\/ca.crt: mode \(expected 0600, node has 0644/,
    );
    expect(plan.stdout).to.match(/Report +file \/etc\/motd: content/);
    expect(plan.stdout).to.contain('same OSC, drift repaired');
    expect(plan.stdout).to.contain('kubelet.service');

    const json = await runCli(['plan', '--root', root, '--next', oscFile, '-o', 'json']);
    expect(JSON.parse(json.stdout).drift.map((d: { action: string }) => d.action)).to.deep.equal([
      'Repair',
      'Repair',
      'Report',
    ]);

    const before = ops().length;
    const out = parseYaml((await apply()).stdout) as { outcome: string; drift: { target: string }[] };
    expect(out.outcome).to.equal('applied');
    expect(out.drift.map((d) => d.target)).to.deep.equal([
      '/var/lib/kubelet/config/kubelet',
      '/var/lib/kubelet/ca.crt',
      '/etc/motd',
    ]);
    expect(ops().slice(before)).to.deep.equal([
      'enable kubelet.service',
      'daemon-reload',
      'restart kubelet.service',
    ]);
    expect(readFileSync(at('var/lib/kubelet/config/kubelet'), 'utf8')).to.contain('maxPods');
    expect(statSync(at('var/lib/kubelet/ca.crt')).mode & 0o777).to.equal(0o600);
    expect(readFileSync(at('etc/motd'), 'utf8')).to.equal('mine\n');

    const second = await runCli(['plan', '--root', root, '--next', oscFile]);
    expect(second.stdout).to.contain('Drift: 1 difference(s)');
    expect(second.stdout).to.contain('unchanged');
  });

  it('--drift off keeps the old behaviour: up to date, nothing repaired', async () => {
    writeFileSync(at('var/lib/kubelet/config/kubelet'), 'edited\n');
    const out = parseYaml((await apply('--drift', 'off')).stdout) as { outcome: string };
    expect(out.outcome).to.equal('up-to-date');
    expect(readFileSync(at('var/lib/kubelet/config/kubelet'), 'utf8')).to.equal('edited\n');
  });

  it('--root and --previous exclude each other', async () => {
    const r = await runCli(['plan', '--root', root, '--previous', oscFile, '--next', oscFile]);
    expect(r.code).to.equal(2);
  });
});
