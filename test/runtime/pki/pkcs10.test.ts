/**
 * Our PKCS#10 writer against OpenSSL (the reference reader: it must verify the self-signature and
 * show the subject we wrote), and our reader against requests OpenSSL wrote.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pem, pemBlock } from '../../../runtime/pki/der.js';
import { createCertificationRequest, OID, parseCertificationRequest } from '../../../runtime/pki/pkcs10.js';

const subject = {
  commonName: 'gardener.cloud:node-agent:machine:node-a',
  organizations: ['gardener.cloud:node-agents'],
};

function openssl(args: string[], input?: string): string {
  return execFileSync('openssl', args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

describe('PKCS#10 requests', () => {
  for (const type of ['ec', 'rsa'] as const) {
    it(`writes a ${type} request OpenSSL verifies, with the subject we asked for`, () => {
      const keys =
        type === 'ec'
          ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
          : generateKeyPairSync('rsa', { modulusLength: 2048 });
      const der = createCertificationRequest(subject, keys);
      const text = openssl(
        ['req', '-verify', '-noout', '-subject', '-nameopt', 'RFC2253'],
        pem('CERTIFICATE REQUEST', der),
      );
      expect(text.trim()).to.equal(
        'subject=CN=gardener.cloud:node-agent:machine:node-a,O=gardener.cloud:node-agents',
      );
      const parsed = parseCertificationRequest(der);
      expect(parsed.subject).to.deep.equal({ ...subject, others: [] });
      expect(parsed.keyType).to.equal(type);
      expect(parsed.extensions).to.deep.equal([]);
      expect(parsed.signatureValid).to.equal(true);
    });
  }

  it('sees a request whose signature does not match its key', () => {
    const keys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const der = Buffer.from(createCertificationRequest(subject, keys));
    // the last byte belongs to the signature
    der[der.length - 1] = der[der.length - 1]! ^ 0xff;
    expect(parseCertificationRequest(der).signatureValid).to.equal(false);
  });

  it('reads what OpenSSL writes: several organizations, other attributes, requested SANs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pkcs10-'));
    try {
      openssl([
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'csr.pem'),
        '-subj',
        '/O=a/O=b/OU=unit/CN=someone',
        '-addext',
        'subjectAltName=DNS:example.com',
      ]);
      const der = pemBlock(readFileSync(join(dir, 'csr.pem'), 'utf8'), 'CERTIFICATE REQUEST');
      const parsed = parseCertificationRequest(der!);
      expect(parsed.subject).to.deep.equal({
        commonName: 'someone',
        organizations: ['a', 'b'],
        others: ['2.5.4.11'],
      });
      expect(parsed.extensions).to.deep.equal([OID.subjectAltName]);
      expect(parsed.signatureValid).to.equal(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects input that is not a request, naming DER', () => {
    for (const bad of [Buffer.alloc(0), Buffer.from([0x30, 0x05, 0x02]), Buffer.from('hello')]) {
      expect(() => parseCertificationRequest(bad)).to.throw(/malformed DER/);
    }
  });
});
