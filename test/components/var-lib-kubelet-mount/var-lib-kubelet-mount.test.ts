import { expect } from 'chai';
import { varLibKubeletMount } from '../../../components/var-lib-kubelet-mount/var-lib-kubelet-mount.js';
import { componentContext, expectComponentGolden } from '../support.js';

describe('components/var-lib-kubelet-mount (v1.91.4)', () => {
  const withVolume = componentContext({ kubeletDataVolumeName: 'kubelet-dir' });

  it('mounts the KUBEDEV data device on /var/lib/kubelet, without command, enable or filePaths', () => {
    expect(varLibKubeletMount(withVolume)).to.deep.equal({
      units: [
        {
          name: 'var-lib-kubelet.mount',
          content: `[Unit]
Description=mount /var/lib/kubelet on kubelet data device
Before=kubelet.service
[Mount]
What=/dev/disk/by-label/KUBEDEV
Where=/var/lib/kubelet
Type=ext4
Options=defaults,prjquota,errors=remount-ro
[Install]
WantedBy=local-fs.target`,
        },
      ],
      files: [],
    });
  });

  it('renders nothing without a kubelet data volume', () => {
    expect(varLibKubeletMount(componentContext())).to.deep.equal({ units: [], files: [] });
  });

  it('is the same with and without the node agent', () => {
    expect(varLibKubeletMount({ ...withVolume, useGardenerNodeAgent: false })).to.deep.equal(
      varLibKubeletMount(withVolume),
    );
  });

  it('matches the golden file', () => {
    expectComponentGolden('var-lib-kubelet-mount', varLibKubeletMount(withVolume));
  });
});
