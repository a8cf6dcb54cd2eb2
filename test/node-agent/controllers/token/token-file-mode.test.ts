/** Token files: 0600 in the v1.91.4 contract, 0640 in v1.150.0's; a mode that differs is fixed. */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  syncTokenFile,
  TOKEN_FILE_MODE,
  TOKEN_FILE_MODE_V150,
} from '../../../../node-agent/controllers/token/token-file-sync.js';
import { useTempDirs } from '../../support/harness.js';

const secret = {
  metadata: { name: 'gardener-opentelemetry-collector', namespace: 'kube-system' },
  data: { token: Buffer.from('t0k3n').toString('base64') },
};

describe('node-agent token files: mode per contract', () => {
  const tempDir = useTempDirs();

  it('writes 0600 by default and 0640 when asked, and fixes the mode of an unchanged token', async () => {
    const root = tempDir('gna-root-');
    const mode = (p: string) => statSync(join(root, p)).mode & 0o7777;
    expect(await syncTokenFile(root, secret, '/var/lib/a/token')).to.equal('written');
    expect(mode('/var/lib/a/token')).to.equal(TOKEN_FILE_MODE);
    expect(await syncTokenFile(root, secret, '/var/lib/a/token')).to.equal('unchanged');
    expect(await syncTokenFile(root, secret, '/var/lib/a/token', TOKEN_FILE_MODE_V150)).to.equal('written');
    expect(mode('/var/lib/a/token')).to.equal(0o640);
    mkdirSync(join(root, 'var/lib/b'), { recursive: true });
    writeFileSync(join(root, 'var/lib/b/token'), 't0k3n', { mode: 0o640 });
    expect(await syncTokenFile(root, secret, '/var/lib/b/token', TOKEN_FILE_MODE_V150)).to.equal('unchanged');
  });
});
