import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import {
  BOOTSTRAP_TOKEN_PLACEHOLDER,
  type OperatingSystemConfig,
  type OscFile,
  type OscUnit,
  StrictOsc,
  stringifyYaml,
} from '../../../api/index.js';
import { render } from '../../../cli/render-command.js';
import {
  cloudConfigStatus,
  inlineSecretRefs,
  reloadCommand,
  renderUserData,
  resultSecretRef,
  UserDataError,
} from '../../../components/os-local/index.js';
import { shellQuote } from '../../../components/shell-quote.js';
import { expectGolden } from '../../golden.js';
import { bashSyntaxErrors, shellcheck } from '../support.js';

function osc(
  purpose: 'provision' | 'reconcile',
  units: OscUnit[],
  files: OscFile[],
  extra: Partial<OperatingSystemConfig['spec']> = {},
): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: `pool-${purpose}`, namespace: 'shoot--foo--bar' },
    spec: { type: 'local', purpose, units, files, ...extra },
  };
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The prelude every script starts with (up to the files); `provision` adds the once-only guard. */
function prelude(name: string, purpose: string): string {
  const guard =
    purpose === 'provision'
      ? `if [[ -e "$root"/var/lib/osc/provision-osc-applied ]]; then
  echo "Provision OSC already applied, exiting..."
  exit 0
fi

`
      : '';
  return `#!/bin/bash
# User data of OperatingSystemConfig "${name}" (purpose ${purpose}), rendered by os-local.
set -o errexit
set -o nounset
set -o pipefail
umask 0022

# Every path written below is prefixed with $OSC_LOCAL_ROOT: empty on a node, a directory in tests.
root="\${OSC_LOCAL_ROOT:-}"

${guard}# Creates the parent directory of $root$1 and prints a new temporary file (mode 0600) in it.
# (No dirname: a command substitution would drop trailing newlines of a directory name.)
new_temp() {
  local dir="$root\${1%/*}"
  mkdir -p -- "\${dir:-/}"
  mktemp -- "$dir/.os-local.XXXXXX"
}

# Gives the temporary file $1 the mode $3 and moves it to $root$2.
commit() {
  chmod -- "$3" "$1"
  mv -fT -- "$1" "$root$2"
}

# write_b64 PATH MODE: the base64 text on stdin, decoded, becomes the file.
write_b64() {
  local tmp
  tmp="$(new_temp "$1")"
  if ! base64 -d >"$tmp"; then
    rm -f -- "$tmp"
    return 1
  fi
  commit "$tmp" "$1" "$2"
}

# write_text PATH MODE: the text on stdin, without the newline the here-document adds, becomes the file.
write_text() {
  local tmp text
  tmp="$(new_temp "$1")"
  IFS= read -r -d '' text || true
  printf '%s' "\${text%$'\\n'}" >"$tmp"
  commit "$tmp" "$1" "$2"
}

# Files
`;
}

/** The here-document delimiter the script uses for a command line (a line before the body). */
function delimiterAfter(script: string, command: string): string {
  const match = script.match(
    new RegExp(`^${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} <<'(EOF_[0-9a-f]{16})'$`, 'm'),
  );
  if (!match) throw new Error(`no here-document for ${command}`);
  return match[1]!;
}

// A provision OSC like gardenlet's (gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/nodeinit/nodeinit.go), with its contents
// shortened.
const NODE_INIT_UNIT = `[Unit]
Description=Downloads the gardener-node-agent binary from the container registry and bootstraps it.
After=network-online.target
Wants=network-online.target
[Service]
Type=oneshot
Restart=on-failure
RestartSec=5
StartLimitBurst=0
EnvironmentFile=/etc/environment
ExecStart=/var/lib/gardener-node-agent/init.sh
[Install]
WantedBy=multi-user.target`;

const INIT_SH = `#!/bin/bash
set -o errexit
set -o nounset
set -o pipefail

image=europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.91.4
tmp_dir="$(mktemp -d)"
ctr images pull "$image" --hosts-dir "/etc/containerd/certs.d"
ctr images mount "$image" "$tmp_dir"
mkdir -p /opt/bin
cp -f "$tmp_dir/gardener-node-agent" /opt/bin/gardener-node-agent
exec /opt/bin/gardener-node-agent bootstrap --config=/var/lib/gardener-node-agent/config.yaml
`;

const PROVISION: OperatingSystemConfig = osc(
  'provision',
  [
    {
      name: 'gardener-node-init.service',
      command: 'start',
      enable: true,
      content: NODE_INIT_UNIT,
      filePaths: ['/var/lib/gardener-node-agent/init.sh'],
    },
    {
      name: 'gardener-user.service',
      enable: true,
      content: '[Service]\nExecStart=/var/lib/gardener-user/run.sh',
    },
  ],
  [
    {
      path: '/var/lib/gardener-node-agent/credentials/bootstrap-token',
      permissions: 0o640,
      content: { inline: { encoding: '', data: BOOTSTRAP_TOKEN_PLACEHOLDER }, transmitUnencoded: true },
    },
    {
      path: '/var/lib/gardener-node-agent/init.sh',
      permissions: 0o755,
      content: { inline: { encoding: 'b64', data: b64(INIT_SH) } },
    },
    {
      path: '/var/lib/gardener-node-agent/config.yaml',
      permissions: 0o600,
      content: {
        inline: {
          encoding: 'b64',
          data: b64('apiVersion: nodeagent.config.gardener.cloud/v1alpha1\nkind: NodeAgentConfiguration\n'),
        },
      },
    },
    {
      path: '/var/lib/gardener-user/run.sh',
      permissions: 0o755,
      content: { inline: { encoding: '', data: '#!/bin/bash\nid gardener || useradd gardener -mU\n' } },
    },
  ],
);

// A reconcile OSC with every kind of unit and file: drop-ins only (OS-provided unit), no content,
// disabled and stopped, imageRef, default permissions, the decimal-744 quirk.
const RECONCILE: OperatingSystemConfig = osc(
  'reconcile',
  [
    {
      name: 'kubelet.service',
      command: 'start',
      enable: true,
      content:
        '[Unit]\nDescription=kubelet daemon\n[Service]\nExecStart=/opt/bin/kubelet --config=/var/lib/kubelet/config/kubelet\n[Install]\nWantedBy=multi-user.target',
      dropIns: [{ name: '10-env.conf', content: '[Service]\nEnvironment="KUBELET_EXTRA_ARGS=--v=2"' }],
      filePaths: ['/var/lib/kubelet/config/kubelet', '/opt/bin/kubelet'],
    },
    {
      name: 'containerd.service',
      dropIns: [
        {
          name: '10-require-containerd-initializer.conf',
          content: '[Unit]\nAfter=containerd-initializer.service',
        },
      ],
    },
    { name: 'systemd-sysctl.service', command: 'restart', enable: true },
    { name: 'update-engine.service', command: 'stop', enable: false },
    {
      name: 'gardener-node-agent.service',
      enable: true,
      content: '[Service]\nExecStart=/opt/bin/gardener-node-agent',
    },
  ],
  [
    {
      path: '/var/lib/kubelet/config/kubelet',
      permissions: 0o644,
      content: { inline: { encoding: 'b64', data: b64('kind: KubeletConfiguration\n') } },
    },
    {
      path: '/opt/bin/kubelet',
      permissions: 0o755,
      content: {
        imageRef: {
          image: 'europe-docker.pkg.dev/gardener-project/releases/hyperkube:v1.30.5',
          filePathInImage: '/kubelet',
        },
      },
    },
    {
      path: '/etc/sysctl.d/99-k8s-general.conf',
      content: { inline: { encoding: '', data: 'vm.max_map_count = 135217728\n' } },
    },
    {
      path: '/opt/bin/init-containerd',
      permissions: 744,
      content: { inline: { encoding: 'b64', data: b64('#!/bin/bash\necho init\n') } },
    },
  ],
  {
    reloadConfigFilePath: '/var/lib/cloud-config-downloader/downloads/cloud_config',
    criConfig: { name: 'containerd' },
  },
);

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go,
// pkg/component/extensions/operatingsystemconfig/executor/executor.go.
describe('components/os-local: user data of an OperatingSystemConfig', () => {
  describe('renderUserData', () => {
    it('renders a small provision OSC to exactly this script', () => {
      const small = osc(
        'provision',
        [{ name: 'a.service', command: 'start', enable: true, content: '[Service]\nExecStart=/bin/true' }],
        [
          { path: "/etc/a b/it's", permissions: 0o600, content: { inline: { encoding: '', data: 'x' } } },
          {
            path: '/var/lib/token',
            content: { inline: { encoding: '', data: '<<BOOTSTRAP_TOKEN>>' }, transmitUnencoded: true },
          },
        ],
      );
      const script = renderUserData(small);
      const d1 = delimiterAfter(script, `write_b64 '/etc/a b/it'"'"'s' 0600`);
      const d2 = delimiterAfter(script, 'write_text /var/lib/token 0644');
      const d3 = delimiterAfter(script, 'write_b64 /etc/systemd/system/a.service 0644');
      expect(script).to.equal(
        prelude('pool-provision', 'provision') +
          `write_b64 '/etc/a b/it'"'"'s' 0600 <<'${d1}'
eA==
${d1}
write_text /var/lib/token 0644 <<'${d2}'
<<BOOTSTRAP_TOKEN>>
${d2}

# Units and drop-ins
write_b64 /etc/systemd/system/a.service 0644 <<'${d3}'
W1NlcnZpY2VdCkV4ZWNTdGFydD0vYmluL3RydWU=
${d3}

systemctl daemon-reload

# Units: enable or disable, restart or stop
systemctl enable -- a.service
systemctl restart --no-block -- a.service

mkdir -p -- "$root"/var/lib/osc
touch -- "$root"/var/lib/osc/provision-osc-applied
`,
      );
      expect(new Set([d1, d2, d3]).size, 'delimiters differ per body').to.equal(3);
    });

    it('renders a reconcile OSC without unit commands or guard: the legacy executor runs those', () => {
      const script = renderUserData(osc('reconcile', [{ name: 'b.service', command: 'start' }], []));
      expect(script).to.equal(
        prelude('pool-reconcile', 'reconcile') + '\n# Units and drop-ins\n\nsystemctl daemon-reload\n',
      );
    });

    it('enables, disables, restarts and stops as the node agent does, in unit order', () => {
      const script = renderUserData(
        osc(
          'provision',
          [
            { name: 'start.service', command: 'start' },
            { name: 'restart.service', command: 'restart', enable: true },
            { name: 'plain.service' },
            { name: 'stop.service', command: 'stop' },
            { name: 'off.service', command: 'start', enable: false },
            { name: 'x@y\\x2d.mount' },
          ],
          [],
        ),
      );
      const commands = script.split('\n').filter((l) => l.startsWith('systemctl '));
      expect(commands).to.deep.equal([
        'systemctl daemon-reload',
        'systemctl enable -- start.service',
        'systemctl restart --no-block -- start.service',
        'systemctl enable -- restart.service',
        'systemctl restart --no-block -- restart.service',
        'systemctl enable -- plain.service',
        'systemctl restart --no-block -- plain.service',
        'systemctl enable -- stop.service',
        'systemctl stop --no-block -- stop.service',
        'systemctl disable -- off.service',
        'systemctl stop --no-block -- off.service',
        "systemctl enable -- 'x@y\\x2d.mount'",
        "systemctl restart --no-block -- 'x@y\\x2d.mount'",
      ]);
    });

    it('writes units, then their drop-ins, after all files; units without content are not written', () => {
      const script = renderUserData(RECONCILE);
      const writes = script.split('\n').filter((l) => l.startsWith('write_b64 ') || l.startsWith('# "'));
      expect(writes.map((l) => l.replace(/ <<'EOF_[0-9a-f]{16}'$/, ''))).to.deep.equal([
        'write_b64 /var/lib/kubelet/config/kubelet 0644',
        '# "/opt/bin/kubelet" comes from image "europe-docker.pkg.dev/gardener-project/releases/hyperkube:v1.30.5": gardener-node-agent writes it',
        'write_b64 /etc/sysctl.d/99-k8s-general.conf 0644',
        'write_b64 /opt/bin/init-containerd 1350',
        'write_b64 /etc/systemd/system/kubelet.service 0644',
        'write_b64 /etc/systemd/system/kubelet.service.d/10-env.conf 0644',
        'write_b64 /etc/systemd/system/containerd.service.d/10-require-containerd-initializer.conf 0644',
        'write_b64 /etc/systemd/system/gardener-node-agent.service 0644',
      ]);
    });

    it('sends only transmitUnencoded files as text, so the bootstrap token placeholder appears exactly there', () => {
      const withPlaceholderElsewhere = structuredClone(PROVISION);
      withPlaceholderElsewhere.spec.files!.push({
        path: '/etc/echo-token',
        content: { inline: { encoding: '', data: `echo ${BOOTSTRAP_TOKEN_PLACEHOLDER}` } },
      });
      const script = renderUserData(withPlaceholderElsewhere);
      expect(script.split(BOOTSTRAP_TOKEN_PLACEHOLDER)).to.have.length(2);
      expect(script).to.match(
        /^write_text \/var\/lib\/gardener-node-agent\/credentials\/bootstrap-token 0640 <<'EOF_[0-9a-f]{16}'\n<<BOOTSTRAP_TOKEN>>\nEOF_/m,
      );
    });

    it('passes text through a quoted here-document: nothing in it expands', () => {
      const text = '$HOME `id` $(id) \\n \'"\n\nEOF\n';
      const script = renderUserData(
        osc(
          'provision',
          [],
          [{ path: '/t', content: { inline: { encoding: '', data: text }, transmitUnencoded: true } }],
        ),
      );
      const d = delimiterAfter(script, 'write_text /t 0644');
      expect(script).to.include(`write_text /t 0644 <<'${d}'\n${text}\n${d}\n`);
    });

    it('wraps base64 at 76 columns and chmods with %04o of the permission (default 0644)', () => {
      const data = Buffer.alloc(100, 0xab).toString('base64');
      const script = renderUserData(
        osc(
          'reconcile',
          [],
          [
            { path: '/big', permissions: 0o4755, content: { inline: { encoding: 'b64', data } } },
            { path: '/zero', permissions: 0, content: { inline: { encoding: '', data: '' } } },
          ],
        ),
      );
      const d = delimiterAfter(script, 'write_b64 /big 4755');
      expect(script).to.include(`<<'${d}'\n${data.slice(0, 76)}\n${data.slice(76)}\n${d}\n`);
      const e = delimiterAfter(script, 'write_b64 /zero 0000');
      expect(script).to.include(`write_b64 /zero 0000 <<'${e}'\n\n${e}\n`);
    });

    it('is deterministic: the same OSC renders the same bytes', () => {
      expect(renderUserData(structuredClone(PROVISION))).to.equal(renderUserData(PROVISION));
      expect(renderUserData(structuredClone(RECONCILE))).to.equal(renderUserData(RECONCILE));
    });

    it('reads secretRef files through the resolver, and fails without one or without the key', () => {
      const withRef = osc(
        'provision',
        [],
        [
          {
            path: '/var/lib/cloud-config-downloader/credentials/ca.crt',
            permissions: 0o644,
            content: { secretRef: { name: 'ca', dataKey: 'bundle.crt' } },
          },
        ],
      );
      expect(() => renderUserData(withRef)).to.throw(
        UserDataError,
        'spec.files[0].content.secretRef: Invalid value: secret "ca" must be resolved by the OS extension',
      );
      const seen: unknown[] = [];
      const script = renderUserData(withRef, {
        resolveSecretRef: (ref, file) => {
          seen.push([ref, file.path]);
          return ref.name === 'ca' && ref.dataKey === 'bundle.crt'
            ? new TextEncoder().encode('CA')
            : undefined;
        },
      });
      expect(seen).to.deep.equal([
        [{ name: 'ca', dataKey: 'bundle.crt' }, '/var/lib/cloud-config-downloader/credentials/ca.crt'],
      ]);
      expect(script).to.match(
        /write_b64 \/var\/lib\/cloud-config-downloader\/credentials\/ca.crt 0644 <<'(EOF_\w+)'\nQ0E=\n\1\n/,
      );
      expect(() => renderUserData(withRef, { resolveSecretRef: () => undefined })).to.throw(
        'spec.files[0].content.secretRef: Invalid value: secret "ca" has no key "bundle.crt"',
      );
    });

    it('rejects a purpose other than provision or reconcile (Go reads any string), naming the field', () => {
      expect(() => renderUserData(osc('other' as 'provision', [], []))).to.throw(
        'spec.purpose: Unsupported value: "other": supported values: provision, reconcile',
      );
    });

    it('skips imageRef files for the reconcile purpose and rejects them for provision', () => {
      const image = { imageRef: { image: 'repo/img:v1', filePathInImage: '/bin' } };
      const reconcile = renderUserData(osc('reconcile', [], [{ path: '/opt/bin/x', content: image }]));
      expect(reconcile).to.include(
        '# "/opt/bin/x" comes from image "repo/img:v1": gardener-node-agent writes it\n',
      );
      expect(reconcile).not.to.include('write_b64 /opt/bin/x');
      expect(() => renderUserData(osc('provision', [], [{ path: '/opt/bin/x', content: image }]))).to.throw(
        'spec.files[0].content.imageRef: Invalid value: user data cannot pull an image',
      );
    });

    it('keeps newlines in names out of comments', () => {
      const script = renderUserData(
        osc(
          'reconcile',
          [],
          [{ path: '/a\nrm -rf /x', content: { imageRef: { image: 'i\nreboot', filePathInImage: '/x' } } }],
        ),
      );
      expect(script).to.include('# "/a\\nrm -rf /x" comes from image "i\\nreboot"');
      expect(
        script.split('\n').filter((l) => l.startsWith('rm -rf') || l.startsWith('reboot')),
      ).to.deep.equal([]);
    });

    it('lists every bad field at once and renders nothing', () => {
      const bad = osc(
        'provision',
        [{ name: 'a/b' }],
        [
          { path: 'relative', content: { inline: { encoding: '', data: '' } } },
          { path: '/a/../b', content: { inline: { encoding: '', data: '' } } },
        ],
      );
      let error: UserDataError | undefined;
      try {
        renderUserData(bad);
      } catch (e) {
        error = e as UserDataError;
      }
      expect(error).to.be.instanceOf(UserDataError);
      expect(error!.errors.map((e) => e.field)).to.deep.equal([
        'spec.units[0].name',
        'spec.files[0].path',
        'spec.files[1].path',
      ]);

      const contents = osc(
        'reconcile',
        [],
        [
          { path: '/a', content: { inline: { encoding: 'b64', data: 'not base64!' } } },
          { path: '/b', content: { inline: { encoding: 'b64', data: 'YQ' } } },
          { path: '/c', content: {} },
          { path: '/d', content: { inline: { encoding: '', data: 'a\0b' }, transmitUnencoded: true } },
          { path: '/e', content: { inline: { encoding: 'b64', data: '/w==' }, transmitUnencoded: true } },
          { path: '/f', content: { inline: { encoding: 'b64', data: 'YW\r\nJj' } } },
        ],
      );
      try {
        renderUserData(contents);
        expect.fail('rendered');
      } catch (e) {
        expect(
          (e as UserDataError).message,
        ).to.equal(`cannot render user data of OperatingSystemConfig pool-reconcile:
  - spec.files[0].content.inline.data: Invalid value: not valid base64 (standard alphabet, padded)
  - spec.files[1].content.inline.data: Invalid value: not valid base64 (standard alphabet, padded)
  - spec.files[2].content: Invalid value: has neither inline, secretRef nor imageRef content
  - spec.files[3].content.transmitUnencoded: Invalid value: content must be UTF-8 text without NUL bytes to be sent unencoded
  - spec.files[4].content.transmitUnencoded: Invalid value: content must be UTF-8 text without NUL bytes to be sent unencoded`);
      }
    });

    it('golden: a provision and a reconcile OSC', () => {
      for (const [name, o] of [
        ['provision', PROVISION],
        ['reconcile', RECONCILE],
      ] as const) {
        const script = renderUserData(o);
        expect(shellcheck(script)).to.deep.equal([]);
        expectGolden(`components/os-local/${name}.sh`, script);
      }
    });
  });

  describe('cloudConfigStatus', () => {
    it('reconcile: result secret, reload command, all unit names and file paths (legacy executor inputs)', () => {
      expect(cloudConfigStatus(RECONCILE)).to.deep.equal({
        cloudConfig: { secretRef: { name: 'osc-result-pool-reconcile', namespace: 'shoot--foo--bar' } },
        command: '/usr/bin/env bash /var/lib/cloud-config-downloader/downloads/cloud_config',
        units: [
          'kubelet.service',
          'containerd.service',
          'systemd-sysctl.service',
          'update-engine.service',
          'gardener-node-agent.service',
        ],
        files: [
          '/var/lib/kubelet/config/kubelet',
          '/opt/bin/kubelet',
          '/etc/sysctl.d/99-k8s-general.conf',
          '/opt/bin/init-containerd',
        ],
      });
    });

    it('provision: only the result secret', () => {
      expect(cloudConfigStatus(PROVISION)).to.deep.equal({
        cloudConfig: { secretRef: { name: 'osc-result-pool-provision', namespace: 'shoot--foo--bar' } },
      });
    });

    it('adds extension units and files (validated) to reconcile OSCs only', () => {
      const dropIn: OscUnit = {
        name: 'systemd-user-sessions.service',
        dropIns: [{ name: 'dependencies.conf', content: '[Unit]\nAfter=systemd-tmpfiles-setup.service' }],
      };
      const file: OscFile = {
        path: '/etc/os-local',
        permissions: 0o644,
        content: { inline: { encoding: '', data: 'x' } },
      };
      const status = cloudConfigStatus(RECONCILE, { extensionUnits: [dropIn], extensionFiles: [file] });
      expect(status.extensionUnits).to.deep.equal([dropIn]);
      expect(status.extensionFiles).to.deep.equal([file]);
      expect(StrictOsc.Status.parse(status)).to.deep.equal(status);
      expect(cloudConfigStatus(PROVISION, { extensionUnits: [dropIn] })).not.to.have.property(
        'extensionUnits',
      );
      expect(() => cloudConfigStatus(RECONCILE, { extensionFiles: [{ ...file, path: 'x' }] })).to.throw(
        UserDataError,
        'status.extensionFiles[0].path: Invalid value: must be an absolute path',
      );
    });

    it('quotes the reload path and keeps an existing result secret', () => {
      expect(reloadCommand("/var/lib/it's")).to.equal(`/usr/bin/env bash '/var/lib/it'"'"'s'`);
      const named = {
        ...RECONCILE,
        status: { cloudConfig: { secretRef: { name: 'mine', namespace: 'ns' } } },
      };
      expect(resultSecretRef(named)).to.deep.equal({ name: 'mine', namespace: 'ns' });
      const noReload = osc('reconcile', [], []);
      expect(cloudConfigStatus(noReload)).to.deep.equal({
        cloudConfig: { secretRef: { name: 'osc-result-pool-reconcile', namespace: 'shoot--foo--bar' } },
      });
    });

    it('golden: the status of both purposes', () => {
      expectGolden(
        'components/os-local/status.yaml',
        stringifyYaml({ provision: cloudConfigStatus(PROVISION), reconcile: cloudConfigStatus(RECONCILE) }),
      );
    });
  });

  describe('inlineSecretRefs', () => {
    it('inlines secretRef files as b64 like gardenlet, and names missing secrets', async () => {
      const withRefs = osc(
        'reconcile',
        [],
        [
          { path: '/a', content: { secretRef: { name: 's', dataKey: 'k' } } },
          { path: '/b', content: { inline: { encoding: '', data: 'b' } } },
          {
            path: '/c',
            permissions: 0o600,
            content: { secretRef: { name: 's', dataKey: 'missing' }, transmitUnencoded: true },
          },
        ],
      );
      const data: Record<string, string> = { k: 'secret' };
      const inlined = await inlineSecretRefs(withRefs, async (ref) =>
        ref.name === 's' ? data[ref.dataKey] : undefined,
      ).catch((e) => e);
      expect(inlined).to.be.instanceOf(UserDataError);
      expect((inlined as UserDataError).errors.map((e) => e.field)).to.deep.equal([
        'spec.files[2].content.secretRef',
      ]);
      data.missing = 'x';
      const ok = await inlineSecretRefs(withRefs, async (ref) => data[ref.dataKey]);
      expect(ok.spec.files).to.deep.equal([
        { path: '/a', content: { inline: { encoding: 'b64', data: b64('secret') } } },
        { path: '/b', content: { inline: { encoding: '', data: 'b' } } },
        {
          path: '/c',
          permissions: 0o600,
          content: { transmitUnencoded: true, inline: { encoding: 'b64', data: b64('x') } },
        },
      ]);
      expect(withRefs.spec.files![0]!.content.secretRef, 'input untouched').to.deep.equal({
        name: 's',
        dataKey: 'k',
      });
      expect(renderUserData(ok)).to.include("<<'EOF_");
    });
  });

  describe('the OSCs gardener-osc render produces for examples/cluster.yaml', () => {
    const oscs = render({ target: 'seed', now: '2024-01-01T00:00:00Z' }).objects.filter(
      (o) => o.kind === 'OperatingSystemConfig',
    ) as unknown as OperatingSystemConfig[];

    it('renders both purposes of every pool: shellcheck-clean, provision user data under 16 KB', () => {
      expect(oscs.map((o) => o.spec.purpose).sort()).to.include.members(['provision', 'reconcile']);
      for (const o of oscs) {
        const script = renderUserData(o);
        expect(shellcheck(script), o.metadata.name).to.deep.equal([]);
        if (o.spec.purpose === 'provision') {
          expect(Buffer.byteLength(script), o.metadata.name).to.be.below(16 * 1024);
          expect(script.split(BOOTSTRAP_TOKEN_PLACEHOLDER), o.metadata.name).to.have.length(2);
        }
        const status = cloudConfigStatus(o);
        if (o.spec.purpose === 'reconcile') {
          expect(status.command).to.equal(
            '/usr/bin/env bash /var/lib/cloud-config-downloader/downloads/cloud_config',
          );
          expect(status.units).to.deep.equal(o.spec.units!.map((u) => u.name));
          expect(status.files).to.deep.equal(o.spec.files!.map((f) => f.path));
        } else {
          expect(status).to.have.keys('cloudConfig');
        }
      }
    });
  });

  describe('properties', () => {
    it('rendering is deterministic, parses, and names every file and unit of the OSC', function () {
      this.timeout(60_000);
      fc.assert(
        fc.property(arbitraryOsc(), (o) => {
          const script = renderUserData(o);
          expect(renderUserData(structuredClone(o))).to.equal(script);
          expect(bashSyntaxErrors(script)).to.equal('');
          for (const file of o.spec.files ?? []) {
            const shown = file.content.imageRef
              ? `# ${JSON.stringify(file.path)} comes from image`
              : `${shellQuote(file.path)} ${(file.permissions ?? 0o644).toString(8).padStart(4, '0')} <<'EOF_`;
            expect(script).to.include(shown);
          }
          for (const unit of o.spec.units ?? []) {
            if (unit.content !== undefined)
              expect(script).to.include(`write_b64 ${shellQuote(`/etc/systemd/system/${unit.name}`)} 0644`);
            for (const d of unit.dropIns ?? [])
              expect(script).to.include(
                `write_b64 ${shellQuote(`/etc/systemd/system/${unit.name}.d/${d.name}`)} 0644`,
              );
            if (o.spec.purpose === 'provision') expect(script).to.include(`-- ${shellQuote(unit.name)}\n`);
          }
        }),
        { numRuns: 100 },
      );
    });

    it('the script is shellcheck-clean whatever the OSC holds', function () {
      this.timeout(60_000);
      fc.assert(
        fc.property(arbitraryOsc(), (o) => {
          expect(shellcheck(renderUserData(o))).to.deep.equal([]);
        }),
        { numRuns: 15 },
      );
    });
  });
});

/** Path segments and names with every character a shell could trip over (no "/" and no NUL). */
const NASTY = [...'abcXYZ019 -_.\'"$`\\\n\t*?[]{}()<>|&;!#~%=:,@+äß€'];
const segment = fc
  .string({ unit: fc.constantFrom(...NASTY), minLength: 1, maxLength: 8 })
  .filter((s) => s !== '.' && s !== '..');

function arbitraryFile(i: number): fc.Arbitrary<OscFile> {
  const content = fc.oneof(
    fc
      .string({ unit: 'binary', maxLength: 200 })
      .map((data) => ({ inline: { encoding: '' as const, data } })),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => ({
      inline: { encoding: 'b64' as const, data: Buffer.from(bytes).toString('base64') },
    })),
    fc
      .string({ unit: 'grapheme', maxLength: 200 })
      .filter((s) => !s.includes('\0'))
      .map((data) => ({ inline: { encoding: '' as const, data }, transmitUnencoded: true })),
    fc.constant({ imageRef: { image: 'repo/image:v1', filePathInImage: '/bin/x' } }),
  );
  return fc.record(
    {
      path: fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `/f${i}/${s.join('/')}`),
      permissions: fc.integer({ min: 0, max: 0o7777 }),
      content,
    },
    { requiredKeys: ['path', 'content'] },
  );
}

function arbitraryUnit(i: number): fc.Arbitrary<OscUnit> {
  return fc.record(
    {
      name: segment.map((s) => `u${i}${s}.service`),
      command: fc.constantFrom('start' as const, 'restart' as const, 'stop' as const),
      enable: fc.boolean(),
      content: fc.string({ unit: 'binary', maxLength: 120 }),
      dropIns: fc
        .array(fc.string({ unit: 'binary', maxLength: 60 }), { maxLength: 3 })
        .chain((contents) =>
          fc
            .tuple(...contents.map((_, j) => segment.map((s) => `${j}${s}.conf`)))
            .map((names) => names.map((name, j) => ({ name, content: contents[j]! }))),
        ),
    },
    { requiredKeys: ['name'] },
  );
}

/** Any valid OSC whose files and units never collide with one another (each has its own directory/name). */
function arbitraryOsc(): fc.Arbitrary<OperatingSystemConfig> {
  return fc
    .record({
      purpose: fc.constantFrom('provision' as const, 'reconcile' as const),
      fileCount: fc.nat({ max: 5 }),
      unitCount: fc.nat({ max: 4 }),
    })
    .chain(({ purpose, fileCount, unitCount }) =>
      fc
        .record({
          files: fc.tuple(...Array.from({ length: fileCount }, (_, i) => arbitraryFile(i))),
          units: fc.tuple(...Array.from({ length: unitCount }, (_, i) => arbitraryUnit(i))),
        })
        .map(({ files, units }) =>
          osc(
            purpose,
            units,
            // provision user data cannot carry imageRef files
            purpose === 'provision' ? files.filter((f) => !f.content.imageRef) : files,
          ),
        ),
    );
}

/**
 * Runs user data for real, with every path it writes below a temporary directory
 * ($OSC_LOCAL_ROOT) and a `systemctl` stub first on PATH that records its arguments. As root (and
 * where mount namespaces work) it runs in its own mount namespace with `/` remounted read-only, so
 * even a script that ignored the prefix could not write to the machine.
 */
class Sandbox {
  static readonly isolated =
    process.getuid?.() === 0 &&
    spawnSync('unshare', ['--mount', '--propagation', 'private', 'true'], { stdio: 'ignore' }).status === 0;

  readonly dir = mkdtempSync(join(tmpdir(), 'os-local-'));
  readonly root = join(this.dir, 'root');
  private readonly log = join(this.dir, 'systemctl.log');

  constructor() {
    mkdirSync(this.root);
    mkdirSync(join(this.dir, 'bin'));
    writeFileSync(
      join(this.dir, 'bin', 'systemctl'),
      `#!/bin/bash\n{ printf '%s\\x1f' "$@"; printf '\\x1e'; } >>"$SYSTEMCTL_LOG"\n`,
      { mode: 0o755 },
    );
  }

  /** Runs the script under `umask` (it must not matter), returns its exit status. */
  run(script: string, umask = '0077'): { status: number | null; stderr: string } {
    if (!this.root.startsWith(`${realpathSync(tmpdir())}/`) && !this.root.startsWith(`${tmpdir()}/`))
      throw new Error(`refusing to run user data outside a temporary directory: ${this.root}`);
    const file = join(this.dir, 'user-data.sh');
    writeFileSync(file, script);
    const env = {
      PATH: `${join(this.dir, 'bin')}:/usr/bin:/bin`,
      OSC_LOCAL_ROOT: this.root,
      SYSTEMCTL_LOG: this.log,
    };
    const run = Sandbox.isolated
      ? spawnSync(
          'unshare',
          [
            '--mount',
            '--propagation',
            'private',
            'bash',
            '-c',
            'mount --bind "$1" "$1" && mount -o remount,bind,ro / && umask "$3" && exec bash "$2"',
            'sandbox',
            this.dir,
            file,
            umask,
          ],
          { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
        )
      : spawnSync('bash', ['--norc', '-c', 'umask "$2" && exec bash "$1"', 'sandbox', file, umask], {
          env,
          encoding: 'utf8',
        });
    if (run.error) throw run.error;
    return { status: run.status, stderr: run.stderr };
  }

  /** Every systemctl call so far, as argument lists. */
  calls(): string[][] {
    if (!existsSync(this.log)) return [];
    return readFileSync(this.log, 'utf8')
      .split('\x1e')
      .filter((call) => call !== '')
      .map((call) => call.split('\x1f').slice(0, -1));
  }

  /** Files below the root (path -> mode and base64 of the bytes) and the mode of every directory. */
  tree(): { files: Record<string, string>; dirs: Record<string, string> } {
    const files: Record<string, string> = {};
    const dirs: Record<string, string> = {};
    const walk = (relative: string) => {
      for (const name of readdirSync(join(this.root, relative)).sort()) {
        const path = `${relative}/${name}`;
        const stat = lstatSync(join(this.root, path));
        const mode = (stat.mode & 0o7777).toString(8).padStart(4, '0');
        if (stat.isDirectory()) {
          dirs[path] = mode;
          walk(path);
        } else {
          files[path] = `${mode} ${readFileSync(join(this.root, path)).toString('base64')}`;
        }
      }
    };
    walk('');
    return { files, dirs };
  }

  path(path: string): string {
    return join(this.root, path);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** What running the user data of `o` must leave on disk (files only), computed from the OSC alone. */
function expectedFiles(o: OperatingSystemConfig): Record<string, string> {
  const files: Record<string, string> = {};
  const put = (path: string, mode: number, bytes: Buffer) => {
    files[path] = `${mode.toString(8).padStart(4, '0')} ${bytes.toString('base64')}`;
  };
  for (const file of o.spec.files ?? []) {
    const inline = file.content.inline;
    if (!inline) continue;
    put(
      file.path,
      file.permissions ?? 0o644,
      Buffer.from(inline.data, inline.encoding === 'b64' ? 'base64' : 'utf8'),
    );
  }
  for (const unit of o.spec.units ?? []) {
    const path = `/etc/systemd/system/${unit.name}`;
    if (unit.content !== undefined) put(path, 0o644, Buffer.from(unit.content, 'utf8'));
    for (const d of unit.dropIns ?? []) put(`${path}.d/${d.name}`, 0o644, Buffer.from(d.content, 'utf8'));
  }
  if (o.spec.purpose === 'provision') put('/var/lib/osc/provision-osc-applied', 0o644, Buffer.alloc(0));
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function expectedCalls(o: OperatingSystemConfig): string[][] {
  const calls = [['daemon-reload']];
  if (o.spec.purpose !== 'provision') return calls;
  for (const u of o.spec.units ?? []) {
    const off = u.enable === false;
    calls.push([off ? 'disable' : 'enable', '--', u.name]);
    calls.push([off || u.command === 'stop' ? 'stop' : 'restart', '--no-block', '--', u.name]);
  }
  return calls;
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

describe('components/os-local: running the user data (against a temporary root, systemctl stubbed)', () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = new Sandbox();
  });
  afterEach(() => sandbox.remove());

  it(`provision: writes files, units and drop-ins with exact bytes and modes, then enables and starts (isolated: ${Sandbox.isolated})`, () => {
    const o = structuredClone(PROVISION);
    o.spec.files!.push(
      {
        path: "/etc/we ird/$(id)/it's\nhere",
        permissions: 0o4751,
        content: { inline: { encoding: 'b64', data: Buffer.from([0, 1, 254, 255, 10]).toString('base64') } },
      },
      { path: '/var/empty-file', content: { inline: { encoding: '', data: '' } } },
      {
        path: '/var/text',
        content: { inline: { encoding: '', data: '\n\nEOF\n$HOME\n\n' }, transmitUnencoded: true },
      },
    );
    o.spec.units!.push({
      name: 'update-engine.service',
      command: 'stop',
      enable: false,
      dropIns: [{ name: '10-x.conf', content: '[Unit]' }],
    });
    const { status, stderr } = sandbox.run(renderUserData(o));
    expect(status, stderr).to.equal(0);
    const tree = sandbox.tree();
    expect(tree.files).to.deep.equal(sorted(expectedFiles(o)));
    expect(
      readFileSync(sandbox.path('/var/lib/gardener-node-agent/credentials/bootstrap-token'), 'utf8'),
    ).to.equal('<<BOOTSTRAP_TOKEN>>');
    expect(readFileSync(sandbox.path('/var/lib/gardener-node-agent/init.sh'), 'utf8')).to.equal(INIT_SH);
    expect(
      Object.values(tree.dirs).every((mode) => mode === '0755'),
      JSON.stringify(tree.dirs),
    ).to.equal(true);
    expect(sandbox.calls()).to.deep.equal([
      ['daemon-reload'],
      ['enable', '--', 'gardener-node-init.service'],
      ['restart', '--no-block', '--', 'gardener-node-init.service'],
      ['enable', '--', 'gardener-user.service'],
      ['restart', '--no-block', '--', 'gardener-user.service'],
      ['disable', '--', 'update-engine.service'],
      ['stop', '--no-block', '--', 'update-engine.service'],
    ]);
  });

  it('provision: runs once; after a reboot it changes nothing and calls nothing', () => {
    const script = renderUserData(PROVISION);
    expect(sandbox.run(script).status).to.equal(0);
    writeFileSync(sandbox.path('/var/lib/gardener-node-agent/init.sh'), 'changed by the node');
    const before = sandbox.tree();
    const { status, stderr } = sandbox.run(script);
    expect(status, stderr).to.equal(0);
    expect(sandbox.tree()).to.deep.equal(before);
    expect(sandbox.calls()).to.have.length(expectedCalls(PROVISION).length);
  });

  it('provision: stops at the first failure, before any unit is started or the run recorded', () => {
    mkdirSync(sandbox.path('/var/lib'), { recursive: true });
    writeFileSync(sandbox.path('/var/lib/gardener-user'), 'a file where a directory must go');
    const { status, stderr } = sandbox.run(renderUserData(PROVISION));
    expect(status).not.to.equal(0);
    expect(stderr).to.include('gardener-user');
    expect(sandbox.calls()).to.deep.equal([]);
    expect(existsSync(sandbox.path('/var/lib/osc/provision-osc-applied'))).to.equal(false);
    expect(Object.keys(sandbox.tree().files).filter((p) => p.includes('.os-local.'))).to.deep.equal([]);
  });

  it('reconcile: re-runnable, restores changed files and modes, skips imageRef files, starts nothing', () => {
    const script = renderUserData(RECONCILE);
    expect(sandbox.run(script).status).to.equal(0);
    const first = sandbox.tree();
    expect(first.files).to.deep.equal(expectedFiles(RECONCILE));
    expect(first.files).not.to.have.property('/opt/bin/kubelet');
    expect(first.files['/opt/bin/init-containerd']).to.match(/^1350 /);
    writeFileSync(sandbox.path('/var/lib/kubelet/config/kubelet'), 'edited');
    chmodSync(sandbox.path('/var/lib/kubelet/config/kubelet'), 0o600);
    const { status, stderr } = sandbox.run(script, '0000');
    expect(status, stderr).to.equal(0);
    expect(sandbox.tree()).to.deep.equal(first);
    expect(sandbox.calls()).to.deep.equal([['daemon-reload'], ['daemon-reload']]);
  });

  it('the OSCs of examples/cluster.yaml: every inline file lands with its bytes and mode', function () {
    this.timeout(30_000);
    const oscs = render({ target: 'seed', now: '2024-01-01T00:00:00Z' }).objects.filter(
      (o) => o.kind === 'OperatingSystemConfig',
    ) as unknown as OperatingSystemConfig[];
    for (const purpose of ['provision', 'reconcile'] as const) {
      const o = oscs.find((x) => x.spec.purpose === purpose)!;
      const box = new Sandbox();
      try {
        const { status, stderr } = box.run(renderUserData(o));
        expect(status, stderr).to.equal(0);
        expect(box.tree().files, o.metadata.name).to.deep.equal(expectedFiles(o));
        expect(box.calls()).to.deep.equal(expectedCalls(o));
      } finally {
        box.remove();
      }
    }
  });

  it('property: whatever the OSC holds, running its user data yields exactly its files, units and calls', function () {
    this.timeout(120_000);
    fc.assert(
      fc.property(arbitraryOsc(), (o) => {
        const box = new Sandbox();
        try {
          const { status, stderr } = box.run(renderUserData(o));
          expect(status, stderr).to.equal(0);
          const tree = box.tree();
          expect(tree.files).to.deep.equal(sorted(expectedFiles(o)));
          expect(Object.values(tree.dirs).every((mode) => mode === '0755')).to.equal(true);
          expect(box.calls()).to.deep.equal(expectedCalls(o));
        } finally {
          box.remove();
        }
      }),
      { numRuns: 30 },
    );
  });
});
