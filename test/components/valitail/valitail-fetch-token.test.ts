import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { fetchTokenScript } from '../../../components/valitail/fetch-token-script.js';

/**
 * Runs fetch-token.sh with its locations moved into a temporary directory and a fake `wget` that
 * logs its arguments and prints the secret the API server would return.
 */
function run(secretYaml: string, wgetExit = 0) {
  const root = mkdtempSync(join(tmpdir(), 'fetch-token-'));
  try {
    const script = fetchTokenScript()
      .replaceAll('/var/lib/cloud-config-downloader', join(root, 'ccd'))
      .replaceAll('/var/lib/valitail', join(root, 'valitail'));
    mkdirSync(join(root, 'ccd/credentials'), { recursive: true });
    mkdirSync(join(root, 'bin'));
    writeFileSync(join(root, 'ccd/credentials/token'), 'ccd-token');
    writeFileSync(join(root, 'ccd/credentials/server'), 'https://api.example.com');
    writeFileSync(join(root, 'secret.yaml'), secretYaml);
    writeFileSync(
      join(root, 'bin/wget'),
      `#!/bin/bash\nprintf '%s\\n' "$@" >'${join(root, 'wget.log')}'\ncat '${join(root, 'secret.yaml')}'\nexit ${wgetExit}\n`,
    );
    chmodSync(join(root, 'bin/wget'), 0o755);
    const env = { ...process.env, PATH: `${join(root, 'bin')}:/usr/bin:/bin` };
    const result = spawnSync('bash', ['--norc', '-c', script], { env, encoding: 'utf8' });
    const tokenPath = join(root, 'valitail/auth-token');
    let token: string | undefined;
    let mode: number | undefined;
    try {
      token = readFileSync(tokenPath, 'utf8');
      mode = statSync(tokenPath).mode & 0o777;
    } catch {
      token = undefined;
    }
    const wgetArgs = readFileSync(join(root, 'wget.log'), 'utf8').trim().split('\n');
    return { status: result.status, stderr: result.stderr, token, mode, wgetArgs, root };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const SECRET = `apiVersion: v1
data:
  token: ${Buffer.from('valitail-token').toString('base64')}
kind: Secret
metadata:
  name: gardener-valitail
  namespace: kube-system
`;

describe('components/valitail fetch-token.sh, run in a sandbox', () => {
  it('fetches the secret with the downloader credentials and stores the decoded token, 0600', () => {
    const result = run(SECRET);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.token).to.equal('valitail-token');
    expect(result.mode).to.equal(0o600);
    expect(result.wgetArgs).to.deep.equal([
      '-qO-',
      '--header',
      'Accept: application/yaml',
      '--header',
      'Authorization: Bearer ccd-token',
      '--ca-certificate',
      join(result.root, 'ccd/credentials/ca.crt'),
      'https://api.example.com/api/v1/namespaces/kube-system/secrets/gardener-valitail',
    ]);
  });

  it('fails and writes nothing when the secret cannot be read', () => {
    const result = run('', 8);
    expect(result.status).to.equal(1);
    expect(result.stderr).to.include('Could not retrieve the valitail token secret');
    expect(result.token).to.equal(undefined);
  });

  it('fails and writes nothing when the secret has no token yet', () => {
    const result = run('apiVersion: v1\nkind: Secret\n');
    expect(result.status).to.equal(1);
    expect(result.stderr).to.include('has no data key token');
    expect(result.token).to.equal(undefined);
  });
});
