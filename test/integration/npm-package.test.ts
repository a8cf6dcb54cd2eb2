/**
 * The installed npm package's `gardener-osc` against API servers: the commands that talk to one
 * (controller-manager, rollout status) run from an installed tarball (test/support/installed-package.ts)
 * under plain Node, the version the package declares as its minimum included. The offline commands:
 * test/cli/npm-package.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringifyYaml } from '../../api/index.js';
import { createShootFixture, type ShootFixture } from '../../hack/landscape/controller-manager-fixture.js';
import { requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually, eventuallyPasses } from '../../hack/landscape/eventually.js';
import { installedPackage, plainEnv, runPlain } from '../support/installed-package.js';

describe('the installed npm package against seed and shoot API servers', function () {
  this.timeout(300_000);
  let f: ShootFixture;
  let dir: string;
  let seedAdminKubeconfig: string;

  before(async function () {
    this.timeout(20 * 60_000);
    const [seed, shoot] = await Promise.all([
      startEnvtest({ name: 'seed' }),
      startEnvtest({ name: 'shoot' }),
    ]);
    requireClusterScopedWrites(seed);
    requireClusterScopedWrites(shoot);
    seedAdminKubeconfig = seed.kubeconfigFile;
    installedPackage();
    f = await createShootFixture(seed, shoot, 'direct');
    dir = mkdtempSync(join(tmpdir(), 'osc-npm-package-it-'));
  });

  after(async () => {
    await f?.cleanUp();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('controller-manager: serves its probes, renders the shoot with its own identity, exits 0 on SIGTERM', async () => {
    const pkg = installedPackage();
    const kubeconfig = join(dir, 'seed.kubeconfig');
    writeFileSync(kubeconfig, f.seedIdentity.exportConfig());
    const configFile = join(dir, 'config.yaml');
    writeFileSync(
      configFile,
      stringifyYaml({
        ...f.rawConfig({ nodeAgent: { identity: 'serviceAccount' } }),
        seedKubeconfig: kubeconfig,
        logFormat: 'json',
      }),
    );
    const child = spawn(
      pkg.bin('gardener-osc'),
      ['controller-manager', '--config', configFile, '--health-port', '0', '--metrics-port', '0'],
      { cwd: pkg.project, env: plainEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const health = await eventually(
        'the health endpoint',
        () => {
          if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${stderr.slice(-2000)}`);
          return /health":"(http:[^"]+)"/.exec(stderr)?.[1];
        },
        60_000,
      );
      await eventuallyPasses(async () => {
        expect((await fetch(`${health}/readyz`)).status).to.equal(200);
        const oscs = await f.seedObjects.list(
          'extensions.gardener.cloud/v1alpha1',
          'OperatingSystemConfig',
          f.namespace,
        );
        expect(oscs.items.length).to.equal(6);
      }, 60_000);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr.slice(-2000)).to.equal(0);
    expect(stderr).to.include('Stopped');
  });

  it('rollout status --shoot: reads the seed through the kubeconfig', () => {
    const pkg = installedPackage();
    // a namespace no controller writes: the answer is the API server's 404, whenever this runs
    const shoot = `${f.namespace}-none`;
    const r = runPlain(
      pkg.bin('gardener-osc'),
      ['rollout', 'status', '--shoot', shoot, '--kubeconfig', seedAdminKubeconfig],
      pkg.project,
    );
    expect(r.stderr).to.contain(`no rollout status in ${shoot}: ConfigMap`);
    expect(r.stderr).not.to.match(/TypeError|ECONNREFUSED|Cannot find/);
  });
});
