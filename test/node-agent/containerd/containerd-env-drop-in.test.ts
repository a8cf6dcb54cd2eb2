/** The environment drop-in of containerd.service (v1.150.0): added once, replacing one already there. */
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../api/index.js';
import { oscV1 } from '../../../hack/landscape/ntv18-fixtures.js';
import { withContainerdEnvDropIn } from '../../../node-agent/containerd/containerd-env-drop-in.js';

const ENV = {
  name: '30-env_config.conf',
  content: '[Service]\nEnvironment="PATH=/var/bin/containerruntimes:/bin"\n',
};

function osc(units: unknown[], containerd = true): OperatingSystemConfig {
  const base = oscV1();
  return {
    ...base,
    spec: {
      ...base.spec,
      units,
      criConfig: { name: 'containerd', ...(containerd ? { containerd: { sandboxImage: 'p' } } : {}) },
    },
  } as OperatingSystemConfig;
}

describe('node-agent containerd: environment drop-in', () => {
  it('adds containerd.service without content when the OSC has none', () => {
    expect(withContainerdEnvDropIn(osc([]), '/bin').spec.units).to.deep.equal([
      { name: 'containerd.service', dropIns: [ENV] },
    ]);
  });

  it("appends to the OSC's unit and replaces a drop-in of the same name (upstream's last applied)", () => {
    const other = { name: '10-x.conf', content: 'x' };
    const stale = { name: '30-env_config.conf', content: 'old' };
    const units = withContainerdEnvDropIn(
      osc([{ name: 'containerd.service', dropIns: [stale, other] }]),
      '/bin',
    ).spec.units;
    expect(units).to.deep.equal([{ name: 'containerd.service', dropIns: [other, ENV] }]);
  });

  it('leaves an OSC without containerd configuration (v1.91.4) alone', () => {
    const plain = osc([], false);
    expect(withContainerdEnvDropIn(plain, '/bin')).to.equal(plain);
  });
});
