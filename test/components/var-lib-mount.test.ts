import { expect } from 'chai';
import { varLibMount } from '../../components/var-lib-mount/var-lib-mount.js';
import { componentContext, expectComponentGolden } from './support.js';

describe('components/var-lib-mount (seed-side §3.3)', () => {
  const withVolume = componentContext({ kubeletDataVolumeName: 'kubelet-dir' });

  it('mounts the kubelet data device on /var/lib, without command, enable or filePaths', () => {
    expect(varLibMount(withVolume)).to.deep.equal({
      units: [
        {
          name: 'var-lib.mount',
          content: `[Unit]
Description=mount /var/lib on kubelet data device
Before=kubelet.service
[Mount]
What=/dev/disk/by-label/kubeletdev
Where=/var/lib
Type=xfs
Options=defaults
[Install]
WantedBy=local-fs.target`,
        },
      ],
      files: [],
    });
  });

  it('renders nothing without a kubelet data volume', () => {
    expect(varLibMount(componentContext())).to.deep.equal({ units: [], files: [] });
  });

  it('is the same with and without the node agent', () => {
    expect(varLibMount({ ...withVolume, useGardenerNodeAgent: false })).to.deep.equal(
      varLibMount(withVolume),
    );
  });

  it('matches the golden file', () => {
    expectComponentGolden('var-lib-mount', varLibMount(withVolume));
  });
});
