/** valitail of the Gardener v1.150.0 contract (gardenlet's `OpenTelemetryCollector` gate off). */
import { expect } from 'chai';
import { parseYaml } from '../../../api/index.js';
import { valitail } from '../../../components/valitail/valitail.js';
import { valitailV150 } from '../../../components/valitail/valitail-v150.js';
import { CA_BUNDLE, componentContext, contentOf, fileAt, unitNamed } from '../support.js';
import { expectComponentGoldenV150 } from '../v150-golden.js';

const input = {
  enabled: true,
  valiIngress: 'v-dev--demo.ingress.seed.example.com',
  caBundle: CA_BUNDLE,
  apiServerUrl: 'https://api.demo.dev.example.com',
  image: 'europe-docker.pkg.dev/gardener-project/releases/3rd/credativ/valitail:v2.2.15',
};
const out = valitailV150(input);

describe('valitail of the v1.150.0 contract', () => {
  it('renders nothing when node logging is off: the agent removes what the OSC no longer lists', () => {
    expect(valitailV150({ ...input, enabled: false })).to.deep.equal({ units: [], files: [] });
  });

  it('refuses to render without a Vali ingress, as upstream', () => {
    expect(() => valitailV150({ ...input, valiIngress: '' })).to.throw('vali ingress url is missing');
  });

  it('starts only once the agent synced the token, and has no fetch-token script', () => {
    const unit = unitNamed(out, 'valitail.service').content ?? '';
    expect(unit).to.contain(
      'ExecStartPre=/bin/sh -c "test -s /var/lib/valitail/auth-token"\nExecStart=/opt/bin/valitail -config.file=/var/lib/valitail/config/config',
    );
    expect(unit).not.to.contain('fetch-token');
    expect(out.units.map((u) => u.name)).to.deep.equal(['valitail.service']);
  });

  it('writes config, CA and binary as the v1.91.4 agent form did, with the v1.150 CA bundle', () => {
    const v191 = valitail(
      componentContext({
        valitailEnabled: true,
        valiIngress: input.valiIngress,
        apiServerUrl: input.apiServerUrl,
      }),
    );
    expect(out.files.map((f) => [f.path, f.permissions])).to.deep.equal(
      v191.files.map((f) => [f.path, f.permissions]),
    );
    // the same values; upstream's template order here, sorted keys in v1.91.4 mode
    const config = contentOf(fileAt(out, '/var/lib/valitail/config/config'));
    expect(parseYaml(config)).to.deep.equal(
      parseYaml(contentOf(fileAt(v191, '/var/lib/valitail/config/config'))),
    );
    expect(config.startsWith('server:\n  disable: true\n')).to.equal(true);
    expect(contentOf(fileAt(out, '/var/lib/valitail/ca.crt'))).to.equal(CA_BUNDLE);
    expect(unitNamed(out, 'valitail.service').filePaths).to.deep.equal([
      '/var/lib/valitail/config/config',
      '/var/lib/valitail/ca.crt',
      '/opt/bin/valitail',
    ]);
  });

  it('matches its golden (decoded view)', () => {
    expectComponentGoldenV150('valitail', out);
  });
});
