/** `npm run demo -- --real-nodes` without booting anything: its limits, its nodes, their user data. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { PATH, UNIT } from '../../api/index.js';
import { shellQuote } from '../../components/shell-quote.js';
import { legacyUserData } from '../../hack/demo/legacy-user-data.js';
import { DemoNode, type NodeSpec } from '../../hack/demo/node.js';
import { createNode } from '../../hack/demo/node-factory.js';
import { RealDemoNode } from '../../hack/demo/real-demo-node.js';
import { DEFAULT_NODES, demoNodeCount, UsageError } from '../../hack/demo/real-nodes-mode.js';

const ROOT = resolve(import.meta.dirname, '../..');
const spec: NodeSpec = {
  name: 'real-node-demo-abc123-01',
  pool: 'cpu-worker',
  zone: 'europe-a',
  kubernetesVersion: '1.30.5',
  architecture: 'amd64',
};
const emit = () => undefined;

describe('hack/demo --real-nodes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'demo-real-nodes-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs 2 real nodes by default, at most 3, and no --break-rollout with them', () => {
    expect(demoNodeCount({ realNodes: true })).to.equal(2);
    expect(demoNodeCount({ realNodes: true, nodes: 3 })).to.equal(3);
    expect(demoNodeCount({})).to.equal(DEFAULT_NODES);
    expect(demoNodeCount({ nodes: 50 })).to.equal(50);
    expect(() => demoNodeCount({ realNodes: true, nodes: 4 })).to.throw(UsageError, /at most 3 nodes/);
    expect(() => demoNodeCount({ realNodes: true, breakRollout: true })).to.throw(
      UsageError,
      /--break-rollout cannot go with --real-nodes/,
    );
  });

  it('refuses too many real nodes on the command line with a readable error and exit code 2', () => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'hack/demo/main.ts', '--real-nodes', '--nodes', '4'],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status, r.stderr).to.equal(2);
    expect(r.stderr).to.match(/--real-nodes boots each node as an nspawn container .*at most 3 nodes/);
    expect(r.stdout).to.not.include('Setup');
  });

  it('makes real nodes with --real-nodes, simulated ones without, booting nothing yet', () => {
    const real = createNode(spec, dir, {
      real: true,
      env: { apiServer: 'https://127.0.0.1:1', agentBinary: '/nonexistent', cache: '/nonexistent', emit },
    });
    expect(real).to.be.instanceOf(RealDemoNode);
    expect(real.name).to.equal(spec.name);
    expect(real.readRootFile(PATH.nodeAgentKubeconfig)).to.equal(undefined);
    const simulated = createNode(spec, dir, {
      real: false,
      env: { apiServer: 'https://127.0.0.1:1', imagesDir: dir, emit },
    });
    expect(simulated).to.be.instanceOf(DemoNode);
  });

  it("boots a real node with the downloader's files, unit and wants link, and starts it", () => {
    const script = legacyUserData({
      unitContent: '[Service]\nExecStart=/var/lib/cloud-config-downloader/download-cloud-config.sh\n',
      files: [{ path: PATH.downloaderToken, mode: 0o600, content: Buffer.from("tok'en") }],
    });
    const b64 = (text: string) => shellQuote(Buffer.from(text).toString('base64'));
    const lines = script.split('\n');
    expect(lines).to.include(`write ${PATH.downloaderToken} 600 ${b64("tok'en")}`);
    expect(lines).to.include(
      `write ${PATH.downloaderUnitFile} 644 ${b64('[Service]\nExecStart=/var/lib/cloud-config-downloader/download-cloud-config.sh\n')}`,
    );
    expect(lines).to.include(`ln -sfn ../${UNIT.downloader} ${PATH.downloaderUnitWantsLink}`);
    expect(lines.indexOf('systemctl daemon-reload')).to.be.lessThan(
      lines.indexOf(`systemctl start --no-block ${UNIT.downloader}`),
    );
    // bash accepts it
    const check = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
    expect(check.status, check.stderr).to.equal(0);
  });
});
