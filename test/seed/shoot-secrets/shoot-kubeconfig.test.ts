import type { V1Secret } from '@kubernetes/client-node';
import { expect } from 'chai';
import { KubeStatusError } from '../../../runtime/kube/kube-http.js';
import {
  loadShootRestConfig,
  type SecretReader,
  ShootKubeConfigError,
  shootRestConfigFromSecrets,
} from '../../../seed/shoot-secrets/index.js';

const NS = 'shoot--dev--demo';
const CA_DATA = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCmNhCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K';
const TOKEN =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6a3ViZS1zeXN0ZW06Z2FyZGVuZXIifQ.c2ln';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** What gardenlet writes (access component, kubernetesutils.NewKubeconfig), after the TokenRequestor filled the token. */
function tokenKubeconfig(server: string, token: string): string {
  return `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA_DATA}
    server: ${server}
  name: ${NS}
contexts:
- context:
    cluster: ${NS}
    user: ${NS}
  name: ${NS}
current-context: ${NS}
kind: Config
preferences: {}
users:
- name: ${NS}
  user:
    token: ${JSON.stringify(token)}
`;
}

/** The same secret before gardener-resource-manager populated the token. */
const UNPOPULATED = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA_DATA}
    server: https://kube-apiserver
  name: ${NS}
contexts:
- context:
    cluster: ${NS}
    user: ${NS}
  name: ${NS}
current-context: ${NS}
kind: Config
preferences: {}
users:
- name: ${NS}
  user: {}
`;

/** Gardener before shoot access secrets: a client certificate signed by the cluster CA. */
const CLIENT_CERT = `apiVersion: v1
kind: Config
current-context: ${NS}
clusters:
- name: ${NS}
  cluster:
    certificate-authority-data: ${CA_DATA}
    server: https://api.demo.dev.internal.example.com/
contexts:
- name: ${NS}
  context:
    cluster: ${NS}
    user: ${NS}-basic-auth
    namespace: default
users:
- name: ${NS}-basic-auth
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
`;

/** generic-token-kubeconfig style: the token is a file on the pod that mounts it. */
function tokenFileKubeconfig(key: string, path: string): string {
  return `apiVersion: v1
kind: Config
current-context: shoot
clusters:
- name: shoot
  cluster:
    certificate-authority-data: ${CA_DATA}
    server: https://kube-apiserver
contexts:
- name: shoot
  context:
    cluster: shoot
    user: shoot
users:
- name: shoot
  user:
    ${key}: ${path}
`;
}

function accessSecret(name: string, data: Record<string, string> | undefined): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: NS,
      labels: {
        'resources.gardener.cloud/purpose': 'token-requestor',
        'resources.gardener.cloud/class': 'shoot',
      },
      annotations: { 'serviceaccount.resources.gardener.cloud/name': name },
    },
    type: 'Opaque',
    ...(data !== undefined && { data }),
  };
}

const internal = accessSecret('gardener-internal', {
  kubeconfig: b64(tokenKubeconfig('https://kube-apiserver', TOKEN)),
  token: b64(TOKEN),
});
const external = accessSecret('gardener', {
  kubeconfig: b64(tokenKubeconfig('https://api.demo.dev.internal.example.com', 'external-token')),
});

function withKubeconfig(name: string, text: string): V1Secret {
  return accessSecret(name, { kubeconfig: b64(text) });
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(ShootKubeConfigError);
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('shoot-secrets: shoot kubeconfig from gardener-internal / gardener', () => {
  it('prefers gardener-internal (inline token, as gardenlet writes it)', () => {
    const kc = shootRestConfigFromSecrets(internal, external);
    expect(kc.server).to.equal('https://kube-apiserver');
    expect(kc.options.ca?.toString('base64')).to.equal(CA_DATA);
    expect(kc.options.token).to.equal(TOKEN);
  });

  it('falls back to gardener when gardener-internal does not exist', () => {
    const kc = shootRestConfigFromSecrets(undefined, external);
    expect(kc.server).to.equal('https://api.demo.dev.internal.example.com');
    expect(kc.options.token).to.equal('external-token');
  });

  it('does not fall back when gardener-internal exists but is unusable (as upstream)', () => {
    const broken = accessSecret('gardener-internal', { token: b64(TOKEN) });
    expect(errorOf(() => shootRestConfigFromSecrets(broken, external)).message).to.equal(
      `secret ${NS}/gardener-internal has no data key kubeconfig`,
    );
  });

  it('missing both: an error naming both secrets', () => {
    expect(errorOf(() => shootRestConfigFromSecrets(undefined, undefined, NS)).message).to.equal(
      `neither secret ${NS}/gardener-internal nor ${NS}/gardener exists: no credentials for the shoot`,
    );
    expect(errorOf(() => shootRestConfigFromSecrets()).message).to.match(
      /^neither secret gardener-internal nor gardener/,
    );
  });

  it('a client-certificate kubeconfig (older Gardener) works; a trailing slash of the server is dropped', () => {
    const kc = shootRestConfigFromSecrets(withKubeconfig('gardener-internal', CLIENT_CERT));
    expect(kc.options.clientCertificate?.toString('base64')).to.equal('Y2VydA==');
    expect(kc.options.clientKey?.toString('base64')).to.equal('a2V5');
    expect(kc.options.token).to.equal(undefined);
    expect(kc.server).to.equal('https://api.demo.dev.internal.example.com');
  });

  it('token not populated yet: a clear, transient error', () => {
    expect(
      errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener-internal', UNPOPULATED))).message,
    ).to.equal(
      `secret ${NS}/gardener-internal: user "${NS}" has no credentials yet: its token is empty and it has no ` +
        "client certificate (gardener-resource-manager's TokenRequestor has not populated the token yet)",
    );
  });

  it('bad data: empty, not base64, invalid YAML, not a mapping', () => {
    expect(
      errorOf(() => shootRestConfigFromSecrets(accessSecret('gardener-internal', { kubeconfig: '' })))
        .message,
    ).to.equal(`secret ${NS}/gardener-internal: data key kubeconfig is empty`);
    expect(
      errorOf(() => shootRestConfigFromSecrets(accessSecret('gardener-internal', { kubeconfig: 'a:b:c' })))
        .message,
    ).to.equal(`secret ${NS}/gardener-internal: data key kubeconfig is not valid base64`);
    expect(
      errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener', 'clusters: [a'))).message,
    ).to.match(new RegExp(`^secret ${NS}/gardener: data key kubeconfig is not valid YAML: `));
    expect(
      errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener', '- a\n- b\n'))).message,
    ).to.equal(`secret ${NS}/gardener: data key kubeconfig is not a kubeconfig (not a YAML mapping)`);
    expect(errorOf(() => shootRestConfigFromSecrets(accessSecret('gardener', undefined))).message).to.equal(
      `secret ${NS}/gardener has no data key kubeconfig`,
    );
  });

  it('no current context, or one that points nowhere', () => {
    const noContext = tokenKubeconfig('https://kube-apiserver', TOKEN).replace(
      `current-context: ${NS}\n`,
      '',
    );
    expect(
      errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener-internal', noContext))).message,
    ).to.equal(
      `secret ${NS}/gardener-internal: kubeconfig has no current context (current-context is empty)`,
    );
    const dangling = tokenKubeconfig('https://kube-apiserver', TOKEN).replace(
      `current-context: ${NS}`,
      'current-context: elsewhere',
    );
    expect(
      errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener-internal', dangling))).message,
    ).to.equal(`secret ${NS}/gardener-internal: kubeconfig contexts has no entry named "elsewhere"`);
    const noUser = tokenKubeconfig('https://kube-apiserver', TOKEN).replace(
      `- name: ${NS}\n  user:`,
      '- name: x\n  user:',
    );
    expect(
      errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener-internal', noUser))).message,
    ).to.equal(`secret ${NS}/gardener-internal: kubeconfig users has no entry named "${NS}"`);
  });

  it('a token file (Go key tokenFile) is rejected with a clear error', () => {
    const text = tokenFileKubeconfig('tokenFile', '/var/run/secrets/gardener.cloud/shoot/token/token');
    expect(
      errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener-internal', text))).message,
    ).to.equal(
      `secret ${NS}/gardener-internal: user "shoot" reads its token from a file ` +
        '(tokenFile: /var/run/secrets/gardener.cloud/shoot/token/token), which is not supported here; ' +
        "gardener's gardener-internal/gardener secrets carry an inline token",
    );
  });

  it('token-file (client-node spelling) is rejected before anything reads the file, even an existing one', () => {
    const text = tokenFileKubeconfig('token-file', import.meta.filename);
    expect(errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener', text))).message).to.contain(
      'reads its token from a file (token-file: ',
    );
  });

  it('exec, auth-provider and file-based certificates are rejected', () => {
    const exec = tokenFileKubeconfig(
      'exec',
      '{command: /bin/sh, apiVersion: client.authentication.k8s.io/v1}',
    );
    expect(errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener', exec))).message).to.equal(
      `secret ${NS}/gardener: user "shoot" uses exec, which is not supported for shoot access`,
    );
    const authProvider = tokenFileKubeconfig('auth-provider', '{name: oidc}');
    expect(
      errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener', authProvider))).message,
    ).to.equal(
      `secret ${NS}/gardener: user "shoot" uses auth-provider, which is not supported for shoot access`,
    );
    const certFile = tokenFileKubeconfig('client-certificate', '/etc/cert.pem');
    expect(errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener', certFile))).message).to.equal(
      `secret ${NS}/gardener: user "shoot" reads client-certificate from a file, which is not supported here`,
    );
    const caFile = CLIENT_CERT.replace(
      `certificate-authority-data: ${CA_DATA}`,
      'certificate-authority: /etc/ca.pem',
    );
    expect(errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener', caFile))).message).to.equal(
      `secret ${NS}/gardener: cluster "${NS}" reads its CA from a file (certificate-authority), which is not supported here`,
    );
  });

  it('half a client certificate is an error', () => {
    const half = CLIENT_CERT.replace('    client-key-data: a2V5\n', '');
    expect(errorOf(() => shootRestConfigFromSecrets(withKubeconfig('gardener', half))).message).to.equal(
      `secret ${NS}/gardener: user "${NS}-basic-auth" has only one of client-certificate-data and client-key-data`,
    );
  });

  it('loads only the current context: other users may reference files', () => {
    const text = `${tokenKubeconfig('https://kube-apiserver', TOKEN)}- name: other
  user:
    tokenFile: /var/run/secrets/token
`;
    const kc = shootRestConfigFromSecrets(withKubeconfig('gardener-internal', text));
    expect(kc.options.token).to.equal(TOKEN);
    expect(kc.options.tokenFile).to.equal(undefined);
  });
});

describe('shoot-secrets: loadShootRestConfig', () => {
  function reader(secrets: Record<string, V1Secret>, failWith?: KubeStatusError) {
    const reads: string[] = [];
    const core: SecretReader = {
      getIfExists: async <T>(_r: unknown, { name, namespace }: { name: string; namespace?: string }) => {
        reads.push(`${namespace}/${name}`);
        if (failWith) throw failWith;
        return secrets[name] as T | undefined;
      },
    };
    return { core, reads };
  }

  it('reads gardener-internal and stops there when it exists', async () => {
    const { core, reads } = reader({ 'gardener-internal': internal, gardener: external });
    const kc = await loadShootRestConfig(core, NS);
    expect(kc.server).to.equal('https://kube-apiserver');
    expect(reads).to.deep.equal([`${NS}/gardener-internal`]);
  });

  it('tolerates a 404 of gardener-internal and reads gardener', async () => {
    const { core, reads } = reader({ gardener: external });
    const kc = await loadShootRestConfig(core, NS);
    expect(kc.options.token).to.equal('external-token');
    expect(reads).to.deep.equal([`${NS}/gardener-internal`, `${NS}/gardener`]);
  });

  it('both missing: the clear error', async () => {
    const { core } = reader({});
    const error = await loadShootRestConfig(core, NS).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(ShootKubeConfigError);
    expect((error as Error).message).to.equal(
      `neither secret ${NS}/gardener-internal nor ${NS}/gardener exists: no credentials for the shoot`,
    );
  });

  it('rethrows any other API error (no fallback on 403/500)', async () => {
    const forbidden = new KubeStatusError(403, 'Forbidden', 'forbidden');
    const { core, reads } = reader({ gardener: external }, forbidden);
    const error = await loadShootRestConfig(core, NS).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.equal(forbidden);
    expect(reads).to.deep.equal([`${NS}/gardener-internal`]);
  });
});
