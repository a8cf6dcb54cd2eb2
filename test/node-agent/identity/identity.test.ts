/**
 * The pure parts of the per-node identity on the node: which name it asks for, where a request
 * stands, when the certificate is renewed, and the identity kubeconfig (re-read when it changes).
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { PATH } from '../../../api/index.js';
import { certificateStep, renewalDeadline } from '../../../node-agent/controllers/certificate/renewal.js';
import { csrState } from '../../../node-agent/identity/csr-state.js';
import {
  certificateValidity,
  writeIdentityKubeconfig,
} from '../../../node-agent/identity/identity-kubeconfig.js';
import { identityNodeName } from '../../../node-agent/identity/identity-name.js';
import { KubeconfigFileAccess } from '../../../runtime/kube/kubeconfig-file.js';
import type { HttpsOptions } from '../../../runtime/kube/rest-config.js';

const HOUR = 3_600_000;

function selfSigned(dir: string, cn: string, days: number): { cert: string; key: string } {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, `${cn}.key`),
      '-out',
      join(dir, `${cn}.crt`),
      '-days',
      String(days),
      '-subj',
      `/CN=${cn}`,
    ],
    { stdio: 'ignore' },
  );
  return {
    cert: readFileSync(join(dir, `${cn}.crt`), 'utf8'),
    key: readFileSync(join(dir, `${cn}.key`), 'utf8'),
  };
}

describe('node agent identity', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'identity-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('the name it asks for', () => {
    it('takes --node-name, else the machine-name file, else the hostname', async () => {
      expect(await identityNodeName({ root: dir, nodeName: 'flag', hostName: 'host' })).to.equal('flag');
      expect(await identityNodeName({ root: dir, hostName: 'host' })).to.equal('host');
      mkdirSync(join(dir, PATH.nodeAgentBaseDir), { recursive: true });
      writeFileSync(join(dir, PATH.nodeAgentMachineName), 'machine-1\nignored\n');
      expect(await identityNodeName({ root: dir, hostName: 'host' })).to.equal('machine-1');
    });

    it('refuses a name that is no Node name, saying where it came from', async () => {
      const error = await identityNodeName({ root: dir, hostName: 'Bad_Host' }).catch((e: unknown) => e);
      expect(String(error)).to.contain('"Bad_Host" (from the hostname) is not a valid Node name');
    });
  });

  describe('where a request stands', () => {
    const cases: [string, Parameters<typeof csrState>[0], string][] = [
      ['no status', {}, 'pending'],
      [
        'approved, not signed yet',
        { status: { conditions: [{ type: 'Approved', status: 'True' }] } },
        'pending',
      ],
      [
        'signed',
        {
          status: { conditions: [{ type: 'Approved' }], certificate: Buffer.from('PEM').toString('base64') },
        },
        'issued',
      ],
      [
        'denied',
        { status: { conditions: [{ type: 'Denied', reason: 'RequestDenied', message: 'no' }] } },
        'denied',
      ],
      ['failed', { status: { conditions: [{ type: 'Failed', status: 'True', message: 'bad' }] } }, 'failed'],
      [
        'a condition that is False',
        { status: { conditions: [{ type: 'Denied', status: 'False' }] } },
        'pending',
      ],
    ];
    for (const [name, csr, state] of cases)
      it(`${name}: ${state}`, () => expect(csrState(csr).state).to.equal(state));

    it('says why a request was denied', () => {
      const s = csrState({
        status: { conditions: [{ type: 'Denied', reason: 'RequestDenied', message: 'no' }] },
      });
      expect(s).to.deep.equal({ state: 'denied', why: 'RequestDenied: no' });
    });
  });

  describe('when it renews', () => {
    const v = { notBefore: 0, notAfter: 100 * HOUR };
    it('at 80 % of the lifetime, plus up to 8 % jitter', () => {
      expect(renewalDeadline(v, 0)).to.equal(80 * HOUR);
      expect(renewalDeadline(v, 0.5)).to.equal(84 * HOUR);
      expect(renewalDeadline(v, 0.999)).to.be.lessThan(88 * HOUR);
    });
    it('waits at most an hour between looks, renews at the deadline, knows an expired one', () => {
      expect(certificateStep(0, v, 80 * HOUR)).to.deep.equal({ action: 'wait', afterMs: HOUR });
      expect(certificateStep(79.5 * HOUR, v, 80 * HOUR)).to.deep.equal({
        action: 'wait',
        afterMs: 0.5 * HOUR,
      });
      expect(certificateStep(80 * HOUR, v, 80 * HOUR)).to.deep.equal({ action: 'renew', expired: false });
      expect(certificateStep(101 * HOUR, v, 80 * HOUR)).to.deep.equal({ action: 'renew', expired: true });
    });
  });

  describe('the identity kubeconfig', () => {
    it('is written 0600 in a 0700 directory and read again when it changes', async () => {
      const file = join(dir, 'credentials', 'kubeconfig');
      const first = selfSigned(dir, 'first', 1);
      await writeIdentityKubeconfig(file, {
        server: 'https://api.example',
        caPem: first.cert,
        certificatePem: first.cert,
        keyPem: first.key,
      });
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect(statSync(join(dir, 'credentials')).mode & 0o777).to.equal(0o700);
      const access = await KubeconfigFileAccess.load(file);
      const applied = async () => {
        const o: HttpsOptions = {};
        await access.applyToHTTPSOptions(o);
        return o.cert?.toString();
      };
      expect(await applied()).to.equal(first.cert);
      const second = selfSigned(dir, 'second', 2);
      await writeIdentityKubeconfig(file, {
        server: 'https://api.example',
        caPem: first.cert,
        certificatePem: second.cert,
        keyPem: second.key,
      });
      expect(await applied()).to.equal(second.cert);
      expect(certificateValidity(second.cert).subject).to.equal('CN=second');
      await writeIdentityKubeconfig(file, {
        server: 'https://elsewhere',
        certificatePem: second.cert,
        keyPem: second.key,
      });
      expect(String(await applied().catch((e: unknown) => e))).to.contain('the server changed');
    });

    it('reports a certificate validity as the certificate says', () => {
      const { cert } = selfSigned(dir, 'v', 3);
      const v = certificateValidity(cert);
      expect(Math.round((v.notAfter - v.notBefore) / (24 * HOUR))).to.equal(3);
    });
  });
});
