import { expect } from 'chai';
import { rootCertificates } from '../../../components/root-certificates/root-certificates.js';
import { CA_BUNDLE, componentContext, contentOf, expectComponentGolden, fileAt } from '../support.js';

const SCRIPT = '/var/lib/ssl/update-local-ca-certificates.sh';
const LOCAL = '/var/lib/ca-certificates-local/ROOTcerts.crt';
const ANCHOR = '/etc/pki/trust/anchors/ROOTcerts.pem';

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/original/components/rootcertificates/component.go.
describe('components/root-certificates', () => {
  const out = rootCertificates(componentContext());

  it('renders script, local bundle and trust anchor, in that order', () => {
    expect(out.files.map((f) => [f.path, f.permissions, f.content.inline?.encoding])).to.deep.equal([
      [SCRIPT, 484, 'b64'],
      [LOCAL, 420, 'b64'],
      [ANCHOR, 420, 'b64'],
    ]);
    expect(contentOf(fileAt(out, LOCAL))).to.equal(CA_BUNDLE);
    expect(contentOf(fileAt(out, ANCHOR))).to.equal(CA_BUNDLE);
  });

  it('renders updatecacerts.service: start, no enable, all three files', () => {
    expect(out.units).to.deep.equal([
      {
        name: 'updatecacerts.service',
        command: 'start',
        content: `[Unit]
Description=Update local certificate authorities
# Since other services depend on the certificate store run this early
DefaultDependencies=no
Wants=systemd-tmpfiles-setup.service clean-ca-certificates.service
After=systemd-tmpfiles-setup.service clean-ca-certificates.service
Before=sysinit.target kubelet.service
ConditionPathIsReadWrite=/etc/ssl/certs
ConditionPathIsReadWrite=/var/lib/ca-certificates-local
ConditionPathExists=!/var/lib/kubelet/kubeconfig-real
[Service]
Type=oneshot
ExecStart=/var/lib/ssl/update-local-ca-certificates.sh
[Install]
WantedBy=multi-user.target`,
        filePaths: [SCRIPT, LOCAL, ANCHOR],
      },
    ]);
  });

  it('updates with --localcertsdir on Debian-like systems and --fresh elsewhere', () => {
    const script = contentOf(fileAt(out, SCRIPT));
    expect(script).to.include('readonly local_certs_dir=/var/lib/ca-certificates-local\n');
    expect(script).to.include('if [[ -f /etc/debian_version ]]; then');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash array expansion, not a placeholder
    expect(script).to.include('cp -af "${distribution_certs[@]}" "$local_certs_dir/"');
    expect(script).to.include(
      'exec /usr/sbin/update-ca-certificates --fresh --localcertsdir "$local_certs_dir"\n',
    );
    expect(script).to.include('\nexec /usr/sbin/update-ca-certificates --fresh\n');
  });

  it('renders nothing without a CA bundle', () => {
    expect(rootCertificates(componentContext({ caBundle: undefined }))).to.deep.equal({
      units: [],
      files: [],
    });
  });

  it('is the same with and without the node agent', () => {
    expect(rootCertificates(componentContext({ useGardenerNodeAgent: false }))).to.deep.equal(out);
  });

  it('matches the golden file', () => {
    expectComponentGolden('root-certificates', out);
  });
});
