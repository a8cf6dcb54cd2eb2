/**
 * Every script the components render (all variants) parses and passes shellcheck without a single
 * finding. shellcheck is required: without it this suite fails and says how to install it.
 */
import { expect } from 'chai';
import type { Component, ComponentContext } from '../../components/component.js';
import { containerd } from '../../components/containerd/containerd.js';
import { containerdInitializer } from '../../components/containerd-initializer/containerd-initializer.js';
import { gardenerUser } from '../../components/gardener-user/gardener-user.js';
import { rootCertificates } from '../../components/root-certificates/root-certificates.js';
import { sshdEnsurer } from '../../components/sshd-ensurer/sshd-ensurer.js';
import { valitail } from '../../components/valitail/valitail.js';
import {
  bashSyntaxErrors,
  componentContext,
  SHELLCHECK_INSTALL_HINT,
  scriptsOf,
  shellcheck,
} from './support.js';

const COMPONENTS: Record<string, Component> = {
  valitail,
  'root-certificates': rootCertificates,
  containerd,
  'containerd-initializer': containerdInitializer,
  'sshd-ensurer': sshdEnsurer,
  'gardener-user': gardenerUser,
};

const VARIANTS: Record<string, Partial<ComponentContext>> = {
  'gate on': {},
  'gate off': { useGardenerNodeAgent: false },
  'ssh off': { sshAccessEnabled: false },
  'odd pause image': { images: { 'pause-container': 'registry.example.com:5000/pause@sha256:0123abcd' } },
};

function renderedScripts(): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const [variant, overrides] of Object.entries(VARIANTS)) {
    const ctx = componentContext(overrides);
    for (const [name, component] of Object.entries(COMPONENTS)) {
      // A variant may lack what a component needs (e.g. the valitail image); it is tested elsewhere.
      let out: ReturnType<Component>;
      try {
        out = component(ctx);
      } catch {
        continue;
      }
      for (const [path, text] of scriptsOf(out)) scripts.set(`${name} ${path} (${variant})`, text);
    }
  }
  return scripts;
}

describe('rendered scripts', () => {
  const scripts = renderedScripts();

  it('covers every script of every component', () => {
    const paths = new Set([...scripts.keys()].map((k) => k.split(' ')[1]));
    expect([...paths].sort()).to.deep.equal([
      '/opt/bin/health-monitor-containerd',
      '/opt/bin/init-containerd',
      '/var/lib/gardener-user/run.sh',
      '/var/lib/sshd-ensurer/run.sh',
      '/var/lib/ssl/update-local-ca-certificates.sh',
      '/var/lib/valitail/scripts/fetch-token.sh',
    ]);
  });

  it('fails, naming the install command, when shellcheck is missing (never skips)', () => {
    expect(() => shellcheck('#!/bin/bash\n', 'shellcheck-not-installed')).to.throw(
      `shellcheck is not installed; install it with: ${SHELLCHECK_INSTALL_HINT}`,
    );
  });

  it('detects a finding (the check can fail)', () => {
    expect(shellcheck('#!/bin/bash\necho $1\n').join('\n')).to.include('SC2086');
  });

  for (const [name, text] of scripts) {
    it(`${name}: bash shebang, parses, passes shellcheck`, () => {
      expect(text.startsWith('#!/bin/bash\n'), 'starts with #!/bin/bash').to.equal(true);
      expect(bashSyntaxErrors(text)).to.equal('');
      expect(shellcheck(text)).to.deep.equal([]);
    });
  }
});
