import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { containerdInitializer } from '../../../components/containerd-initializer/containerd-initializer.js';
import { componentContext, contentOf, expectComponentGolden, fileAt } from '../support.js';

const SCRIPT = '/opt/bin/init-containerd';
const DROP_IN = '/etc/systemd/system/containerd.service.d/10-require-containerd-initializer.conf';

/** What `containerd config default` (1.7) writes around the settings the script edits. */
const DEFAULT_CONFIG = `disabled_plugins = []
imports = []
version = 2

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.8"

    [plugins."io.containerd.grpc.v1.cri".registry]
      config_path = ""

      [plugins."io.containerd.grpc.v1.cri".registry.auths]
`;

/**
 * Runs the rendered script with its locations moved into a temporary directory and fake
 * `containerd` (prints DEFAULT_CONFIG) and `systemctl` (logs its arguments) first on PATH.
 */
class Sandbox {
  readonly root = mkdtempSync(join(tmpdir(), 'init-containerd-'));
  readonly config = join(this.root, 'etc/containerd/config.toml');
  readonly systemctlLog = join(this.root, 'systemctl.log');
  private readonly script: string;

  constructor(script: string) {
    this.script = script
      .replaceAll('/etc/containerd', join(this.root, 'etc/containerd'))
      .replaceAll('/etc/systemd/system', join(this.root, 'etc/systemd/system'))
      .replaceAll('/var/bin/containerruntimes', join(this.root, 'var/bin/containerruntimes'));
    const bin = join(this.root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'containerd'), `#!/bin/bash\ncat <<'EOF'\n${DEFAULT_CONFIG}EOF\n`);
    writeFileSync(join(bin, 'systemctl'), `#!/bin/bash\necho "$*" >>'${this.systemctlLog}'\n`);
    chmodSync(join(bin, 'containerd'), 0o755);
    chmodSync(join(bin, 'systemctl'), 0o755);
  }

  run(): { status: number | null; stderr: string } {
    const env = { ...process.env, PATH: `${join(this.root, 'bin')}:/usr/bin:/bin` };
    const result = spawnSync('bash', ['--norc', '-c', this.script], { env, encoding: 'utf8' });
    return { status: result.status, stderr: result.stderr };
  }

  writeConfig(text: string): void {
    mkdirSync(join(this.root, 'etc/containerd'), { recursive: true });
    writeFileSync(this.config, text, { mode: 0o640 });
  }

  readConfig(): string {
    return readFileSync(this.config, 'utf8');
  }

  path(relative: string): string {
    return join(this.root, relative);
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/original/components/containerd/initializer.go
// (S-TV-17).
describe('components/containerd-initializer', () => {
  const out = containerdInitializer(componentContext());
  const script = contentOf(fileAt(out, SCRIPT));

  it('renders the oneshot unit, enabled, without filePaths', () => {
    expect(out.units).to.deep.equal([
      {
        name: 'containerd-initializer.service',
        command: 'start',
        enable: true,
        content:
          '[Unit]\nDescription=Containerd initializer\n[Install]\nWantedBy=multi-user.target\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/opt/bin/init-containerd',
      },
    ]);
  });

  it('writes the script with the decimal permission 744 (quirk kept) and the drop-in as plain text', () => {
    expect(out.files.map((f) => f.path)).to.deep.equal([SCRIPT, DROP_IN]);
    expect(fileAt(out, SCRIPT).permissions).to.equal(744);
    expect(fileAt(out, SCRIPT).content.inline?.encoding).to.equal('b64');
    expect(fileAt(out, DROP_IN)).to.deep.equal({
      path: DROP_IN,
      permissions: 420,
      content: {
        inline: {
          encoding: '',
          data: '[Unit]\nAfter=containerd-initializer.service\nRequires=containerd-initializer.service',
        },
      },
    });
  });

  it('inserts the pause image and the runtime binary directory', () => {
    expect(script).to.include('export PAUSE_IMAGE=registry.k8s.io/pause:3.9\n');
    expect(script).to.include('readonly runtime_bin_dir=/var/bin/containerruntimes\n');
    const other = containerdInitializer(componentContext({ images: { 'pause-container': 'foo.io:v1.2.3' } }));
    expect(contentOf(fileAt(other, SCRIPT))).to.include('export PAUSE_IMAGE=foo.io:v1.2.3\n');
  });

  it('fails clearly on a missing or malformed pause image', () => {
    expect(() => containerdInitializer(componentContext({ images: {} }))).to.throw(
      'image "pause-container" is missing',
    );
    expect(() => containerdInitializer(componentContext({ images: { 'pause-container': 'a"b' } }))).to.throw(
      'image "pause-container" is not a valid reference',
    );
  });

  it('is the same with and without the node agent', () => {
    expect(containerdInitializer(componentContext({ useGardenerNodeAgent: false }))).to.deep.equal(out);
  });

  it('matches the golden file', () => {
    expectComponentGolden('containerd-initializer', out);
  });

  describe('the script, run in a sandbox', () => {
    let sandbox: Sandbox;
    beforeEach(() => {
      sandbox = new Sandbox(script);
    });
    afterEach(() => sandbox.remove());

    it('creates the default config and configures sandbox image, registry hosts and imports', () => {
      const run = sandbox.run();
      expect(run.status, run.stderr).to.equal(0);
      const config = sandbox.readConfig();
      const glob = sandbox.path('etc/containerd/conf.d/*.toml');
      const certs = sandbox.path('etc/containerd/certs.d');
      expect(config).to.equal(`disabled_plugins = []
imports = ["${glob}"]
version = 2

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.9"

    [plugins."io.containerd.grpc.v1.cri".registry] # gardener-managed
      config_path = "${certs}"

      [plugins."io.containerd.grpc.v1.cri".registry.auths]
`);
      expect(statSync(sandbox.path('etc/containerd/conf.d')).isDirectory()).to.equal(true);
      expect(statSync(certs).isDirectory()).to.equal(true);
      expect(statSync(sandbox.path('var/bin/containerruntimes')).isDirectory()).to.equal(true);
    });

    it('adds the runtime directory to containerd PATH once, then reloads systemd', () => {
      expect(sandbox.run().status).to.equal(0);
      const dropIn = readFileSync(
        sandbox.path('etc/systemd/system/containerd.service.d/30-env_config.conf'),
        'utf8',
      );
      expect(dropIn).to.equal(
        `[Service]\nEnvironment="PATH=${sandbox.path('var/bin/containerruntimes')}:${sandbox.path('bin')}:/usr/bin:/bin"\n`,
      );
      expect(readFileSync(sandbox.systemctlLog, 'utf8')).to.equal('daemon-reload\n');
      expect(sandbox.run().status).to.equal(0);
      expect(readFileSync(sandbox.systemctlLog, 'utf8')).to.equal('daemon-reload\n');
    });

    it('is idempotent: a second run changes nothing', () => {
      expect(sandbox.run().status).to.equal(0);
      const first = sandbox.readConfig();
      expect(sandbox.run().status).to.equal(0);
      expect(sandbox.readConfig()).to.equal(first);
    });

    it('keeps an existing config, its mode, a user-set config_path and existing imports', () => {
      sandbox.writeConfig(`imports = ["/etc/other/*.toml"]
version = 2
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "old"
[plugins."io.containerd.grpc.v1.cri".registry]
  config_path = "/etc/my-registries"
`);
      expect(sandbox.run().status).to.equal(0);
      expect(
        sandbox.readConfig(),
      ).to.equal(`imports = ["/etc/other/*.toml", "${sandbox.path('etc/containerd/conf.d/*.toml')}"]
version = 2
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.9"
[plugins."io.containerd.grpc.v1.cri".registry]
  config_path = "/etc/my-registries"
`);
      expect(statSync(sandbox.config).mode & 0o777).to.equal(0o640);
    });

    it('appends a gardener-managed registry table when there is none', () => {
      sandbox.writeConfig('version = 2\n');
      const run = sandbox.run();
      expect(run.stderr).to.include('has no sandbox_image setting');
      expect(sandbox.readConfig()).to.equal(`imports = ["${sandbox.path('etc/containerd/conf.d/*.toml')}"]
version = 2
[plugins."io.containerd.grpc.v1.cri".registry] # gardener-managed
  config_path = "${sandbox.path('etc/containerd/certs.d')}"
`);
    });
  });
});
