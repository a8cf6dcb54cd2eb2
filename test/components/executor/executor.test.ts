import { expect } from 'chai';
import { secretChecksum } from '../../../api/index.js';
import { executorScript } from '../../../components/executor/executor-script.js';
import { executorSecret } from '../../../components/executor/executor-secret.js';
import { expectGolden } from '../../golden.js';
import { bashSyntaxErrors, shellcheck } from '../support.js';

const input = {
  cloudConfig: '#!/bin/bash\necho applied\nCLOUD_CONFIG\n',
  maxDelaySeconds: 300,
  hyperkubeImage: 'europe-docker.pkg.dev/gardener-project/releases/hyperkube:v1.30.5',
  kubernetesVersion: '1.30.5',
  kubeletDataVolumeSize: undefined,
  reloadCommand: '/usr/bin/env bash /var/lib/cloud-config-downloader/downloads/cloud_config',
  units: [
    'kubelet.service',
    'var-lib-kubelet.mount',
    'docker.service',
    'cloud-config-downloader.service',
    'gardener-node-init.service',
  ],
  files: ['/var/lib/kubelet/config/kubelet', '/var/lib/gardener-node-agent/init.sh'],
};

// Upstream: gardener v1.91.4 pkg/component/extensions/operatingsystemconfig/executor/executor.go.
describe('legacy executor', () => {
  it('passes shellcheck, with and without a kubelet data volume', () => {
    for (const size of [undefined, 53687091200]) {
      const script = executorScript({ ...input, kubeletDataVolumeSize: size });
      expect(bashSyntaxErrors(script)).to.equal('');
      expect(shellcheck(script)).to.deep.equal([]);
    }
  });

  it('restarts every status unit but the mount, docker and the downloader itself', () => {
    const script = executorScript(input);
    expect(script).to.contain('readonly units=(kubelet.service gardener-node-init.service)');
    expect(script).to.contain('systemctl enable "$unit" && systemctl restart --no-block "$unit"');
  });

  it('waits a per-node delay of 30 + RANDOM % max seconds, chosen once (S-TV-24)', () => {
    const script = executorScript(input);
    expect(script).to.contain('readonly max_delay_seconds=300');
    expect(script).to.contain(
      'echo $(( 30 + RANDOM % max_delay_seconds )) > "$base/execution_delay_seconds"',
    );
    expect(script).to.contain('echo 30 > "$base/execution_delay_seconds"');
    expect(script).to.contain('if (( $(date +%s) - last < delay )); then');
  });

  it('embeds the cloud config as base64, so no content can end the here-document', () => {
    const script = executorScript(input);
    expect(script).to.contain(Buffer.from(input.cloudConfig).toString('base64'));
    expect(script).not.to.contain('echo applied');
  });

  it('formats the kubelet data volume first when the pool has one', () => {
    const script = executorScript({ ...input, kubeletDataVolumeSize: 1234 });
    const embedded = script.match(
      /<<'FORMAT_KUBELET_DATA_VOLUME'\n([\s\S]*?)\nFORMAT_KUBELET_DATA_VOLUME/,
    )![1]!;
    const formatter = Buffer.from(embedded.replaceAll('\n', ''), 'base64').toString('utf8');
    expect(formatter).to.contain('PARTTYPE="".*FSTYPE="".*SIZE="1234"');
    expect(formatter).to.contain('echo "Matching kubelet data device by size : $size"');
  });

  it('matches the reviewed golden file', () => {
    expectGolden('components/executor.sh', executorScript({ ...input, kubeletDataVolumeSize: 1234 }));
  });

  it('S-TV-20: the executor secret', () => {
    const secret = executorSecret('cloud-config-pool-77ac3', 'pool', 'script');
    expect(secret.metadata).to.deep.equal({
      name: 'cloud-config-pool-77ac3',
      namespace: 'kube-system',
      labels: { 'gardener.cloud/role': 'cloud-config', 'worker.gardener.cloud/pool': 'pool' },
      annotations: {
        'checksum/data-script': '762ab2979c97da7384f04a460a2c09c4e6c8aa25cdc2c9845800f2ee644a3e62',
      },
    });
    expect(secret.metadata.annotations['checksum/data-script']).to.equal(
      secretChecksum({ script: 'script' }),
    );
    expect(secret.data).to.deep.equal({ script: Buffer.from('script').toString('base64') });
  });
});
