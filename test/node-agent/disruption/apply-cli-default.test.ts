/** `gardener-node-agent apply`: least disruption without the flag, `none` as upstream, the node's policy file. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OperatingSystemConfig, OscFile } from '../../../api/index.js';
import { yamlOf } from '../../../hack/landscape/ntv18-fixtures.js';
import { parseRecording } from '../../../hack/node-agent-doubles/recording-systemd.js';
import { DISRUPTION_POLICY_PATH } from '../../../node-agent/cli/disruption-policy-flag.js';
import { runCli } from '../support/cli-run.js';
import { useTempDirs } from '../support/harness.js';

const file = (path: string, data: string): OscFile => ({ path, content: { inline: { encoding: '', data } } });
const CONTAINERD = '[Service]\nExecStart=/usr/bin/containerd';

function osc(o: { maxPods: number; containerd?: string }): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'osc' },
    spec: {
      type: 't',
      purpose: 'reconcile',
      units: [
        { name: 'containerd.service', command: 'start', enable: true, content: o.containerd ?? CONTAINERD },
        {
          name: 'kubelet.service',
          command: 'start',
          enable: true,
          content: '[Service]\nExecStart=/opt/bin/kubelet',
          filePaths: ['/var/lib/kubelet/config/kubelet'],
        },
      ],
      files: [file('/var/lib/kubelet/config/kubelet', `maxPods: ${o.maxPods}\n`)],
    },
  };
}

describe('node-agent disruption: `gardener-node-agent apply` by default', () => {
  const tempDir = useTempDirs();

  /** The unit restarts of applying `next` after `first` to a fresh root. */
  async function restartsOf(next: OperatingSystemConfig, flags: string[] = [], policyFile?: string) {
    const dir = tempDir();
    const root = join(dir, 'root');
    mkdirSync(root);
    if (policyFile !== undefined) {
      mkdirSync(join(root, 'var/lib/gardener-node-agent'), { recursive: true });
      writeFileSync(join(root, DISRUPTION_POLICY_PATH), policyFile);
    }
    const record = join(dir, 'systemd.jsonl');
    const apply = (name: string, o: OperatingSystemConfig) => {
      const path = join(dir, name);
      writeFileSync(path, yamlOf(o));
      return runCli(['apply', '--osc', path, '--root', root, `--systemd=record:${record}`, ...flags]);
    };
    const first = await apply('a.yaml', osc({ maxPods: 110 }));
    expect(first.code, first.stderr).to.equal(0);
    const before = parseRecording(readFileSync(record, 'utf8')).length;
    const second = await apply('b.yaml', next);
    const restarts = parseRecording(readFileSync(record, 'utf8'))
      .slice(before)
      .flatMap((op) => (op.op === 'restart' && 'unit' in op ? [op.unit] : []));
    return { ...second, restarts };
  }

  const commentOnly = () => osc({ maxPods: 110, containerd: `# a comment\n${CONTAINERD}` });

  it('restarts nothing for a comment in a unit', async () => {
    const r = await restartsOf(commentOnly());
    expect(r.code, r.stderr).to.equal(0);
    expect(r.restarts).to.deep.equal([]);
  });

  it('with `none` restarts the unit whose content changed, as upstream', async () => {
    const r = await restartsOf(commentOnly(), ['--disruption-policy', 'none']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.restarts).to.deep.equal(['containerd.service']);
  });

  it("takes the node's policy file: a drain it asks for is refused before anything is written", async () => {
    const drain =
      'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: DisruptionPolicy\nunits:\n- unit: kubelet.service\n  action: DrainAndRestart\n';
    const refused = await restartsOf(osc({ maxPods: 120 }), [], drain);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.contain('DrainAndRestart');
    expect(refused.restarts).to.deep.equal([]);
    // the flag wins over the file
    const flag = await restartsOf(osc({ maxPods: 120 }), ['--disruption-policy', 'defaults'], drain);
    expect(flag.code, flag.stderr).to.equal(0);
    expect(flag.restarts).to.deep.equal(['kubelet.service']);
  });
});
