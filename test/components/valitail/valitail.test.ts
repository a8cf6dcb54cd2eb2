import { expect } from 'chai';
import { parseYaml } from '../../../api/index.js';
import { apiServerHostname } from '../../../components/valitail/config.js';
import { valitail } from '../../../components/valitail/valitail.js';
import { componentContext, contentOf, expectComponentGolden, fileAt, unitNamed } from '../support.js';

const CONFIG = '/var/lib/valitail/config/config';
const CA = '/var/lib/valitail/ca.crt';
const BINARY = '/opt/bin/valitail';
const SCRIPT = '/var/lib/valitail/scripts/fetch-token.sh';

const UNIT_HEAD = `[Unit]
Description=valitail daemon
Documentation=https://github.com/credativ/plutono`;

const SERVICE = `[Install]
WantedBy=multi-user.target
[Service]
CPUAccounting=yes
MemoryAccounting=yes
CPUQuota=3%
CPUQuotaPeriodSec=1000ms
MemoryMin=29M
MemoryHigh=400M
MemoryMax=800M
MemorySwapMax=0
Restart=always
RestartSec=5
EnvironmentFile=/etc/environment
ExecStartPre=/bin/sh -c "systemctl set-environment HOSTNAME=$(hostname | tr [:upper:] [:lower:])"`;

/** S-TV-18's context. */
const stv18 = componentContext({
  caBundle: 'malskjdvbfnasufbaus',
  valiIngress: 'ingress.vali.testClusterDomain',
  apiServerUrl: 'https://api.test-cluster.com',
  images: { valitail: 'github.com/valitail:v0.1.0' },
  valitailEnabled: true,
});

type Config = {
  client: { url: string; bearer_token_file: string; tls_config: { ca_file: string; server_name: string } };
  positions: { filename: string };
  server: { disable: boolean; log_level: string; http_listen_port: number };
  scrape_configs: {
    job_name: string;
    relabel_configs: { action?: string; regex?: string }[];
    kubernetes_sd_configs?: {
      api_server: string;
      bearer_token_file: string;
      tls_config: { server_name: string; ca_file: string };
      namespaces: { names: string[] };
    }[];
    pipeline_stages?: unknown[];
  }[];
};

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/original/components/valitail/component.go.
describe('components/valitail', () => {
  describe('gate on (S-TV-18)', () => {
    const out = valitail(stv18);

    it('renders config, CA and binary, in that order', () => {
      expect(out.files.map((f) => f.path)).to.deep.equal([CONFIG, CA, BINARY]);
      expect(out.files.map((f) => f.permissions)).to.deep.equal([420, 420, 493]);
      expect(fileAt(out, CONFIG).content.inline?.encoding).to.equal('b64');
    });

    it('writes the CA bundle base64-encoded', () => {
      expect(fileAt(out, CA).content).to.deep.equal({
        inline: { encoding: 'b64', data: Buffer.from('malskjdvbfnasufbaus').toString('base64') },
      });
    });

    it('takes the binary from the valitail image', () => {
      expect(fileAt(out, BINARY).content).to.deep.equal({
        imageRef: { image: 'github.com/valitail:v0.1.0', filePathInImage: '/usr/bin/valitail' },
      });
    });

    it('renders valitail.service byte for byte, without a trailing newline', () => {
      expect(out.units).to.deep.equal([
        {
          name: 'valitail.service',
          command: 'start',
          enable: true,
          content: `${UNIT_HEAD}\n${SERVICE}\nExecStart=/opt/bin/valitail -config.file=/var/lib/valitail/config/config`,
          filePaths: [CONFIG, CA, BINARY],
        },
      ]);
    });

    it('configures the client, positions and server as upstream', () => {
      const config = parseYaml(contentOf(fileAt(out, CONFIG))) as Config;
      expect(config.client).to.deep.equal({
        url: 'https://ingress.vali.testClusterDomain/vali/api/v1/push',
        batchwait: '10s',
        batchsize: 1536000,
        bearer_token_file: '/var/lib/valitail/auth-token',
        tls_config: { ca_file: CA, server_name: 'ingress.vali.testClusterDomain' },
      });
      expect(config.server).to.deep.equal({ disable: true, log_level: 'info', http_listen_port: 3001 });
      expect(config.positions).to.deep.equal({ filename: '/var/log/positions.yaml' });
    });

    it('scrapes the journal (important units, the rest packed) and Gardener pods of kube-system', () => {
      const config = parseYaml(contentOf(fileAt(out, CONFIG))) as Config;
      expect(config.scrape_configs.map((j) => j.job_name)).to.deep.equal([
        'journal',
        'combine-journal',
        'kubernetes-pods-name',
      ]);
      const [journal, combine, pods] = config.scrape_configs;
      const units =
        '^kernel|kubelet\\.service|docker\\.service|containerd\\.service|gardener-node-agent\\.service$';
      expect(journal!.relabel_configs[2]).to.deep.equal({
        action: 'keep',
        regex: units,
        source_labels: ['__journal_syslog_identifier'],
      });
      expect(combine!.relabel_configs[2]).to.include({ action: 'drop', regex: units });
      expect(combine!.pipeline_stages).to.deep.equal([
        { pack: { labels: ['unit'], ingest_timestamp: true } },
      ]);
      expect(pods!.kubernetes_sd_configs).to.deep.equal([
        {
          role: 'pod',
          api_server: 'https://api.test-cluster.com',
          tls_config: { server_name: 'api.test-cluster.com', ca_file: CA },
          bearer_token_file: '/var/lib/valitail/auth-token',
          namespaces: { names: ['kube-system'] },
        },
      ]);
      expect(pods!.relabel_configs).to.have.length(14);
    });

    it('renders nothing when valitail is disabled', () => {
      expect(valitail({ ...stv18, valitailEnabled: false })).to.deep.equal({ units: [], files: [] });
    });

    it('fails when valitail is enabled without a Vali ingress', () => {
      expect(() => valitail({ ...stv18, valiIngress: '' })).to.throw('vali ingress url is missing');
    });

    it('writes an empty CA file when there is no CA bundle', () => {
      expect(fileAt(valitail({ ...stv18, caBundle: undefined }), CA).content.inline?.data).to.equal('');
    });

    it('keeps hostile ingress names data, never YAML structure', () => {
      const ingress = 'evil.example.com\nscrape_configs: []';
      const config = parseYaml(
        contentOf(fileAt(valitail({ ...stv18, valiIngress: ingress }), CONFIG)),
      ) as Config;
      expect(config.client.tls_config.server_name).to.equal(ingress);
      expect(config.scrape_configs).to.have.length(3);
    });

    it('fails with a clear message when the valitail image is missing', () => {
      expect(() => valitail({ ...stv18, images: {} })).to.throw('image "valitail" is missing');
    });

    it('matches the golden files', () => {
      expectComponentGolden('valitail-gate-on', valitail(componentContext()));
      expectComponentGolden(
        'valitail-gate-on-disabled',
        valitail(componentContext({ valitailEnabled: false })),
      );
    });
  });

  describe('gate off (legacy)', () => {
    const ctx = { ...stv18, useGardenerNodeAgent: false };
    const out = valitail(ctx);
    const docker =
      'ExecStartPre=/usr/bin/docker run --rm -v /opt/bin:/opt/bin:rw --entrypoint /bin/sh github.com/valitail:v0.1.0 -c "cp /usr/bin/valitail /opt/bin"';

    it('renders config, CA and the fetch-token script', () => {
      expect(out.files.map((f) => f.path)).to.deep.equal([CONFIG, CA, SCRIPT]);
      expect(fileAt(out, SCRIPT).permissions).to.equal(484);
      expect(fileAt(out, SCRIPT).content.inline?.encoding).to.equal('b64');
    });

    it('renders valitail.service with the docker copy step, and the token fetcher', () => {
      expect(out.units).to.deep.equal([
        {
          name: 'valitail.service',
          command: 'start',
          enable: true,
          content: `${UNIT_HEAD}\nAfter=valitail-fetch-token.service\n${SERVICE}\n${docker}\nExecStart=/opt/bin/valitail -config.file=/var/lib/valitail/config/config`,
          filePaths: [CONFIG, CA],
        },
        {
          name: 'valitail-fetch-token.service',
          command: 'start',
          enable: true,
          content: `[Unit]
Description=valitail token fetcher
After=cloud-config-downloader.service
[Install]
WantedBy=multi-user.target
[Service]
Restart=always
RestartSec=300
RuntimeMaxSec=120
EnvironmentFile=/etc/environment
ExecStart=/var/lib/valitail/scripts/fetch-token.sh`,
          filePaths: [SCRIPT],
        },
      ]);
    });

    it('fetches the gardener-valitail secret with the downloader credentials into the auth token', () => {
      const script = contentOf(fileAt(out, SCRIPT));
      expect(script).to.match(/^#!\/bin\/bash\n/);
      for (const fragment of [
        'readonly credentials_token=/var/lib/cloud-config-downloader/credentials/token',
        'readonly credentials_server=/var/lib/cloud-config-downloader/credentials/server',
        'readonly credentials_ca=/var/lib/cloud-config-downloader/credentials/ca.crt',
        'readonly secret_path=/api/v1/namespaces/kube-system/secrets/gardener-valitail',
        'readonly auth_token=/var/lib/valitail/auth-token',
        'wget -qO-',
        'base64 -d',
      ])
        expect(script).to.include(fragment);
    });

    it('keeps both units, switched off, when valitail is disabled', () => {
      const disabled = valitail({ ...ctx, valitailEnabled: false });
      expect(disabled.files).to.deep.equal([]);
      expect(disabled.units.map((u) => u.name)).to.deep.equal([
        'valitail.service',
        'valitail-fetch-token.service',
      ]);
      expect(unitNamed(disabled, 'valitail.service')).to.deep.equal({
        name: 'valitail.service',
        command: 'start',
        enable: true,
        content: `${UNIT_HEAD}\nAfter=valitail-fetch-token.service\n${SERVICE}\nExecStartPre=/bin/systemctl disable valitail.service\nExecStart=/bin/sh -c "echo service valitail.service is removed!; while true; do sleep 86400; done"`,
      });
      expect(unitNamed(disabled, 'valitail-fetch-token.service').content).to.equal(`[Unit]
Description=valitail token fetcher
After=cloud-config-downloader.service
[Install]
WantedBy=multi-user.target
[Service]
Restart=always
RestartSec=300
RuntimeMaxSec=120
EnvironmentFile=/etc/environment
ExecStartPre=/bin/systemctl disable valitail-fetch-token.service
ExecStart=/bin/sh -c "rm -f /var/lib/valitail/auth-token; echo service valitail-fetch-token.service is removed!; while true; do sleep 86400; done"`);
      expect(unitNamed(disabled, 'valitail-fetch-token.service').filePaths).to.equal(undefined);
    });

    it('fails when valitail is enabled without a Vali ingress', () => {
      expect(() => valitail({ ...ctx, valiIngress: '' })).to.throw('vali ingress url is missing');
    });

    it('matches the golden files', () => {
      const legacy = componentContext({ useGardenerNodeAgent: false });
      expectComponentGolden('valitail-gate-off', valitail(legacy));
      expectComponentGolden('valitail-gate-off-disabled', valitail({ ...legacy, valitailEnabled: false }));
    });
  });

  describe('apiServerHostname (Go url.Hostname)', () => {
    it('drops scheme, port and IPv6 brackets', () => {
      expect(apiServerHostname('https://api.test-cluster.com')).to.equal('api.test-cluster.com');
      expect(apiServerHostname('https://api.example.com:6443/path')).to.equal('api.example.com');
      expect(apiServerHostname('https://[2001:db8::1]:443')).to.equal('2001:db8::1');
    });

    it('names an unparsable URL', () => {
      expect(() => apiServerHostname('not a url')).to.throw('API server URL "not a url" cannot be parsed');
    });
  });
});
