import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { PATH } from '../../../api/index.js';
import {
  kubeletBootstrapKubeconfig,
  writeKubeletBootstrapKubeconfig,
} from '../../../node-agent/bootstrap/kubelet-bootstrap-kubeconfig.js';
import { fileAt, snapshotTree, useTempDirs } from '../support/harness.js';

/** N-TV-14's expected bytes, literally. */
const N_TV_14 = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: Y2EtYnVuZGxl
    server: https://server
  name: kubelet-bootstrap
contexts:
- context:
    cluster: kubelet-bootstrap
    user: kubelet-bootstrap
  name: kubelet-bootstrap
current-context: kubelet-bootstrap
kind: Config
preferences: {}
users:
- name: kubelet-bootstrap
  user:
    token: bootstrap-token
`;

/** server `server`, caBundle `ca-bundle` (the config holds it base64-encoded). */
const CONFIG = { apiServer: { server: 'server', caBundle: Buffer.from('ca-bundle').toString('base64') } };

// Upstream: gardener v1.91.4
// cmd/gardener-node-agent/app/bootstrappers/kubelet_bootstrap_kubeconfig.go (N-TV-14).
describe('node-agent bootstrap: kubelet bootstrap kubeconfig', () => {
  const tempDir = useTempDirs();
  let root: string;
  const put = (hostPath: string, content: string) => {
    mkdirSync(dirname(join(root, hostPath)), { recursive: true });
    writeFileSync(join(root, hostPath), content);
  };
  const write = () => writeKubeletBootstrapKubeconfig({ root, config: CONFIG });

  beforeEach(() => {
    root = tempDir('gna-kubeconfig-');
  });

  it('no bootstrap token file: no /var/lib/kubelet dir, no kubeconfig', async () => {
    expect(await write()).to.equal('no-bootstrap-token');
    expect(existsSync(join(root, PATH.kubeletDir))).to.equal(false);
    expect(snapshotTree(root)).to.deep.equal({});
  });

  it('token and kubeconfig-real: no bootstrap kubeconfig', async () => {
    put(PATH.nodeAgentBootstrapToken, 'bootstrap-token');
    put(PATH.kubeletKubeconfig, 'real');
    expect(await write()).to.equal('kubeconfig-exists');
    expect(existsSync(join(root, PATH.kubeletBootstrapKubeconfig))).to.equal(false);
  });

  it('token and kubelet-client-current.pem: no bootstrap kubeconfig', async () => {
    put(PATH.nodeAgentBootstrapToken, 'bootstrap-token');
    put(PATH.kubeletClientCertificate, 'pem');
    expect(await write()).to.equal('client-certificate-exists');
    expect(existsSync(join(root, PATH.kubeletBootstrapKubeconfig))).to.equal(false);
  });

  it('token only: kubeconfig-bootstrap with mode 0600 and exactly the N-TV-14 bytes', async () => {
    put(PATH.nodeAgentBootstrapToken, 'bootstrap-token');
    expect(await write()).to.equal('written');
    expect(fileAt(root, PATH.kubeletBootstrapKubeconfig)).to.deep.equal({ mode: '0600', content: N_TV_14 });
    expect(snapshotTree(root)['var/lib/kubelet']).to.deep.equal({ type: 'dir', mode: '0750' });
  });

  it('trims the token and replaces an existing kubeconfig-bootstrap (0644 → 0600)', async () => {
    put(PATH.nodeAgentBootstrapToken, '  bootstrap-token\n\n');
    put(PATH.kubeletBootstrapKubeconfig, 'old');
    expect(await write()).to.equal('written');
    expect(fileAt(root, PATH.kubeletBootstrapKubeconfig)).to.deep.equal({ mode: '0600', content: N_TV_14 });
  });

  it('keeps an https:// server as it is and leaves out an empty CA', () => {
    const text = kubeletBootstrapKubeconfig('https://api.example.org', undefined, 't');
    expect(text).to.contain('- cluster:\n    server: https://api.example.org\n  name: kubelet-bootstrap\n');
    expect(text).not.to.contain('certificate-authority-data');
    expect(kubeletBootstrapKubeconfig('server', 'Y2EtYnVuZGxl', 'bootstrap-token')).to.equal(N_TV_14);
  });

  it('never writes through a symlink that leads out of the root', async () => {
    const outside = tempDir('gna-outside-');
    put(PATH.nodeAgentBootstrapToken, 'bootstrap-token');
    mkdirSync(join(root, 'var/lib'), { recursive: true });
    symlinkSync(outside, join(root, PATH.kubeletDir));
    let error: Error | undefined;
    await write().catch((e: Error) => {
      error = e;
    });
    expect(error?.message).to.contain('resolves outside the root');
    expect(snapshotTree(outside)).to.deep.equal({});
  });
});
