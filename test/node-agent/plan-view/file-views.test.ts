/** How the plan shows files: settings changed, secrets redacted, binaries and images, octal modes. */
import { expect } from 'chai';
import type { OperatingSystemConfig, OscFile } from '../../../api/index.js';
import { fileViews, octal } from '../../../node-agent/plan-view/file-views.js';
import { redactionReason } from '../../../node-agent/plan-view/redaction.js';
import { settingChanges, summarizeTextChange } from '../../../node-agent/plan-view/value-summary.js';
import { computePlan } from '../../../node-agent/planner/compute-plan.js';

const inline = (path: string, data: string, permissions?: number, encoding: '' | 'b64' = ''): OscFile => ({
  path,
  ...(permissions === undefined ? {} : { permissions }),
  content: { inline: { encoding, data: encoding === 'b64' ? Buffer.from(data).toString('base64') : data } },
});

const osc = (...files: OscFile[]): OperatingSystemConfig => ({
  apiVersion: 'extensions.gardener.cloud/v1alpha1',
  kind: 'OperatingSystemConfig',
  metadata: { name: 'osc' },
  spec: { type: 't', purpose: 'reconcile', files },
});

const views = (a: OperatingSystemConfig, b: OperatingSystemConfig) => fileViews(a, computePlan(a, b));

describe('node-agent plan view: files', () => {
  it('names the settings that changed in YAML, key = value and INI files, else counts lines', () => {
    const table: [string, string, string][] = [
      ['maxPods: 110\nfoo: {a: 1}\n', 'maxPods: 120\nfoo: {a: 1}\n', 'maxPods 110 → 120'],
      ['a: {b: x}\n', 'a: {b: x, c: true}\n', 'a.c (unset) → true'],
      ['{"x": "one two"}', '{"x": ""}', 'x "one two" → ""'],
      ['net.ipv4.ip_forward = 0\n# c\n', 'net.ipv4.ip_forward = 1\n# c\n', 'net.ipv4.ip_forward 0 → 1'],
      ['[Journal]\nMaxFileSec=24h\n', '[Journal]\nMaxFileSec=12h\n', 'Journal.MaxFileSec 24h → 12h'],
      ['a: 1\nb: 1\nc: 1\nd: 1\n', 'a: 2\nb: 2\nc: 2\nd: 2\n', 'a 1 → 2, b 1 → 2, c 1 → 2 and 1 more'],
      ['#!/bin/bash\necho one\n', '#!/bin/bash\necho two\necho three\n', '+2 −1 lines'],
    ];
    for (const [before, after, summary] of table)
      expect(summarizeTextChange(before, after), before).to.equal(summary);
    expect(settingChanges('x', 'y')).to.equal(undefined);
  });

  it('redacts credentials by path or content and shows byte counts instead', () => {
    const table: [string, string | undefined, string | undefined][] = [
      ['/var/lib/gardener-node-agent/credentials/token', 'abc', 'the path names a credential'],
      ['/var/lib/kubelet/kubeconfig-real', 'x', 'the path names a credential'],
      ['/etc/ssl/private/node.key', 'x', 'the path names a credential'],
      ['/root/.ssh/id_ed25519', 'x', 'the path names a credential'],
      ['/etc/x.conf', '-----BEGIN EC PRIVATE KEY-----\nMHc\n', 'it holds a private key'],
      ['/etc/cloud.yaml', 'auth:\n  password: hunter2\n', 'it holds a credential field'],
      ['/etc/cloud.ini', 'client-secret = abc\n', 'it holds a credential field'],
      [
        '/etc/x',
        'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJlLXgtdmFsdWU\n',
        'it holds a JSON web token',
      ],
      ['/etc/x', 'join --token abcdef.0123456789abcdef\n', 'it holds a bootstrap token'],
      ['/var/lib/valitail/config/config', 'bearer_token_file: /var/lib/valitail/auth-token\n', undefined],
      ['/var/lib/kubelet/kubeconfig-bootstrap-template', undefined, 'the path names a credential'],
      ['/var/lib/kubelet/ca.crt', '-----BEGIN CERTIFICATE-----\nMII\n', undefined],
      ['/var/lib/gardener-user-authorized-keys', 'ssh-rsa AAAA key\n', undefined],
      ['/etc/x', 'password: ""\ntoken: <<BOOTSTRAP_TOKEN>>\n', undefined],
      [
        '/var/lib/gardener-node-agent/config.yaml',
        'controllers:\n  token:\n    syncConfigs: []\n',
        undefined,
      ],
    ];
    for (const [path, text, reason] of table)
      expect(redactionReason(path, [text]), `${path} ${text}`).to.equal(reason);

    const [view] = views(
      osc(inline('/etc/cloud.yaml', 'password: one\n', 0o600)),
      osc(inline('/etc/cloud.yaml', 'password: seven\n', 0o600)),
    );
    expect(view).to.deep.equal({
      path: '/etc/cloud.yaml',
      change: 'changed',
      mode: { from: '0600', to: '0600' },
      bytes: { from: 14, to: 16 },
      redacted: 'it holds a credential field',
      summary: 'content redacted, 14 bytes → 16 bytes',
      diff: null,
    });
    expect(JSON.stringify(view)).not.to.contain('seven');
  });

  it('decodes base64, shows modes in octal (0600 without permissions) and mode-only changes', () => {
    const [b64, mode] = views(
      osc(inline('/etc/a', 'one\n', 0o644, 'b64'), inline('/etc/b', 'same\n')),
      osc(inline('/etc/a', 'two\n', 0o644, 'b64'), inline('/etc/b', 'same\n', 0o755)),
    );
    expect(b64!.diff).to.equal('--- a/etc/a\n+++ b/etc/a\n@@ -1 +1 @@\n-one\n+two\n');
    expect(mode).to.include({ summary: 'mode 0600 → 0755', diff: null });
    expect(mode!.mode).to.deep.equal({ from: '0600', to: '0755' });
    expect([octal(0o644), octal(0o4755), octal(0)]).to.deep.equal(['0644', '4755', '0000']);
  });

  it('shows binary content by size and images by reference; added and removed files', () => {
    const binary = (bytes: number[]): OscFile => ({
      path: '/opt/bin/x',
      permissions: 0o755,
      content: { inline: { encoding: 'b64', data: Buffer.from(bytes).toString('base64') } },
    });
    const image = (tag: string): OscFile => ({
      path: '/opt/bin/kubelet',
      permissions: 0o755,
      content: { imageRef: { image: `registry.example/hyperkube:${tag}`, filePathInImage: '/kubelet' } },
    });
    const out = views(
      osc(binary([0, 1, 2]), image('v1.30.5'), inline('/etc/gone', 'bye\n')),
      osc(binary([0, 1, 2, 3]), image('v1.31.2'), inline('/etc/new', 'hi\n', 0o640)),
    );
    expect(out.map((f) => [f.path, f.change, f.summary, f.diff])).to.deep.equal([
      ['/opt/bin/x', 'changed', 'binary, 3 bytes → 4 bytes', null],
      ['/opt/bin/kubelet', 'changed', 'image registry.example/hyperkube:v1.30.5 → v1.31.2', null],
      ['/etc/new', 'added', 'new file', '--- /dev/null\n+++ b/etc/new\n@@ -0,0 +1 @@\n+hi\n'],
      ['/etc/gone', 'removed', 'removed', '--- a/etc/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n'],
    ]);
    expect(out[0]).to.include({ binary: true });
    expect(out[2]!.mode).to.deep.equal({ to: '0640' });
    expect(out[3]!.mode).to.deep.equal({ from: '0600' });
  });
});
