import { expect } from 'chai';
import { ValidationError } from '../../../api/index.js';
import { pathMatches } from '../../../node-agent/planner/disruption-policy.js';
import { decodeDisruptionPolicy } from '../../../node-agent/planner/disruption-policy-decode.js';
import '../support/harness.js';

const HEAD = { apiVersion: 'node-configuration.gardener.cloud/v1alpha1', kind: 'DisruptionPolicy' };

function problems(document: unknown): string {
  try {
    decodeDisruptionPolicy(document);
  } catch (e) {
    expect(e).to.be.instanceOf(ValidationError);
    return (e as Error).message;
  }
  throw new Error('accepted');
}

describe('node-agent disruption: the policy file', () => {
  it('reads path and unit rules', () => {
    const policy = decodeDisruptionPolicy({
      ...HEAD,
      paths: [
        { path: '/etc/valitail/*.yaml', action: 'Reload', units: ['valitail.service'], reason: 'SIGHUP' },
      ],
      units: [{ unit: 'containerd.service', action: 'Restart' }],
    });
    expect(policy).to.deep.equal({
      paths: [
        { path: '/etc/valitail/*.yaml', action: 'Reload', units: ['valitail.service'], reason: 'SIGHUP' },
      ],
      units: [{ unit: 'containerd.service', action: 'Restart' }],
    });
  });

  it('names the field of every problem', () => {
    const message = problems({
      ...HEAD,
      kind: 'Policy',
      paths: [
        { path: 'etc/x', action: 'Restart' },
        { path: '/x', action: 'Bounce', units: ['kubelet'] },
      ],
      units: [
        { unit: 'a.service', action: 'Reboot' },
        { unit: 'a.service', action: 'None', extra: 1 },
      ],
    });
    for (const field of [
      'kind:',
      'paths[0].path:',
      'paths[1].action:',
      'paths[1].units[0]:',
      'units[0].action:',
      'units[1].extra:',
      'units[1].unit:',
    ])
      expect(message).to.contain(field);
    expect(message).to.contain('Reboot not yet');
  });

  it('refuses what it cannot carry out (Reboot) instead of doing less; DrainAndRestart it can', () => {
    expect(problems({ ...HEAD, units: [{ unit: 'kubelet.service', action: 'Reboot' }] })).to.contain(
      'units[0].action',
    );
    expect(
      decodeDisruptionPolicy({ ...HEAD, units: [{ unit: 'kubelet.service', action: 'DrainAndRestart' }] })
        .units,
    ).to.deep.equal([{ unit: 'kubelet.service', action: 'DrainAndRestart' }]);
  });

  it('matches paths exactly, * within a segment, a trailing /** below a directory', () => {
    expect(pathMatches('/etc/a.conf', '/etc/a.conf')).to.equal(true);
    expect(pathMatches('/etc/a.conf', '/etc/a.confx')).to.equal(false);
    expect(pathMatches('/etc/sysctl.d/*.conf', '/etc/sysctl.d/99-k8s.conf')).to.equal(true);
    expect(pathMatches('/etc/sysctl.d/*.conf', '/etc/sysctl.d/sub/99.conf')).to.equal(false);
    expect(pathMatches('/etc/containerd/certs.d/**', '/etc/containerd/certs.d/r.io/hosts.toml')).to.equal(
      true,
    );
    expect(pathMatches('/etc/containerd/certs.d/**', '/etc/containerd/certs.d')).to.equal(false);
  });
});
