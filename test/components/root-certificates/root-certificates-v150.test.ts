/** The root certificates of the Gardener v1.150.0 contract. */
import { expect } from 'chai';
import { osCaBundleV150 } from '../../../charts/values/ca-bundle-v150.js';
import { rootCertificatesV150 } from '../../../components/root-certificates/root-certificates-v150.js';
import { updateLocalCaCertificatesScriptV150 } from '../../../components/root-certificates/update-script-v150.js';
import { bashSyntaxErrors, CA_BUNDLE, contentOf, fileAt } from '../support.js';
import { expectComponentGoldenV150 } from '../v150-golden.js';

const REGISTRY_CA = '-----BEGIN CERTIFICATE-----\nUkVHSVNUUlk=\n-----END CERTIFICATE-----\n';

describe('root certificates of the v1.150.0 contract', () => {
  it('runs on every node, also one that has joined (no kubeconfig-real condition)', () => {
    const [unit] = rootCertificatesV150({ caBundle: CA_BUNDLE }).units;
    expect(unit?.content).not.to.contain('ConditionPathExists');
    expect(unit?.content).to.contain('ConditionPathIsReadWrite=/var/lib/ca-certificates-local\n[Service]');
    expect(unit).to.include({ name: 'updatecacerts.service', command: 'start' });
    expect(unit).not.to.have.property('enable');
  });

  it('writes the bundle even when it is empty', () => {
    const out = rootCertificatesV150({ caBundle: '' });
    expect(contentOf(fileAt(out, '/var/lib/ca-certificates-local/ROOTcerts.crt'))).to.equal('');
  });

  it('adds the registry CA in both places and lists it among the unit files', () => {
    const out = rootCertificatesV150({ caBundle: CA_BUNDLE, registryCaBundle: REGISTRY_CA });
    for (const path of [
      '/var/lib/ca-certificates-local/registry-ca.crt',
      '/etc/pki/trust/anchors/registry-ca.pem',
    ]) {
      expect(contentOf(fileAt(out, path))).to.equal(REGISTRY_CA);
      expect(fileAt(out, path).permissions).to.equal(0o644);
      expect(out.units[0]?.filePaths).to.include(path);
    }
  });

  it('puts the cloud profile CA first and writes no leading line break without one', () => {
    expect(osCaBundleV150(undefined, 'cluster', undefined)).to.equal('cluster');
    expect(osCaBundleV150('profile', 'cluster', undefined)).to.equal('profile\ncluster');
    expect(osCaBundleV150('profile', 'cluster', 'pool')).to.equal('profile\ncluster\npool');
  });

  it('writes a script bash accepts', () => {
    expect(bashSyntaxErrors(updateLocalCaCertificatesScriptV150('/var/lib/ca-certificates-local'))).to.equal(
      '',
    );
  });

  it('matches its golden (decoded view)', () => {
    expectComponentGoldenV150(
      'root-certificates',
      rootCertificatesV150({ caBundle: CA_BUNDLE, registryCaBundle: REGISTRY_CA }),
    );
  });
});
