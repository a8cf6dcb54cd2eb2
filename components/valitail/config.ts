/**
 * valitail's (promtail's) configuration (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/valitail/config.go). Built as
 * data and written through the project's YAML codec rather than by text substitution, so an ingress
 * or API server name can never break the YAML; the directives and values are those of upstream's
 * `valitail-config.tpl.yaml`.
 */
import { stringifyYaml } from '../../api/index.js';
import { VALITAIL_PATH } from './paths.js';

export interface ValitailConfigInput {
  /** Host name of the Vali ingress, the push target and the TLS server name. */
  readonly valiIngress: string;
  readonly apiServerUrl: string;
}

/** The systemd units whose journal goes to Vali one line per entry; all others are packed. */
const KEPT_UNITS =
  '^kernel|kubelet\\.service|docker\\.service|containerd\\.service|gardener-node-agent\\.service$';

/** Go's `url.Hostname()`: the host without port and without the brackets of an IPv6 literal. */
export function apiServerHostname(apiServerUrl: string): string {
  let url: URL;
  try {
    url = new URL(apiServerUrl);
  } catch {
    throw new Error(`API server URL ${JSON.stringify(apiServerUrl)} cannot be parsed`);
  }
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Shared head of both journal jobs: which entries they read and how the unit becomes a label. */
function journalJob(jobName: string, jobLabel: string, unitFilter: 'keep' | 'drop') {
  return {
    job_name: jobName,
    journal: { json: false, labels: { job: jobLabel, origin: 'systemd-journal' }, max_age: '12h' },
    relabel_configs: [
      { action: 'drop', regex: '^localhost$', source_labels: ['__journal__hostname'] },
      {
        action: 'replace',
        regex: '(.+)',
        replacement: '$1',
        source_labels: ['__journal__systemd_unit'],
        target_label: '__journal_syslog_identifier',
      },
      { action: unitFilter, regex: KEPT_UNITS, source_labels: ['__journal_syslog_identifier'] },
      { source_labels: ['__journal_syslog_identifier'], target_label: 'unit' },
      { source_labels: ['__journal__hostname'], target_label: 'nodename' },
    ],
  };
}

/** Logs of kube-system pods that Gardener runs (labelled with a role, origin or GRM ownership). */
function gardenerPodsJob(input: ValitailConfigInput) {
  const podLabel = (name: string) => `__meta_kubernetes_pod_label_${name}`;
  return {
    job_name: 'kubernetes-pods-name',
    pipeline_stages: [{ cri: {} }, { labeldrop: ['filename', 'stream', 'pod_uid'] }],
    kubernetes_sd_configs: [
      {
        role: 'pod',
        api_server: input.apiServerUrl,
        tls_config: { server_name: apiServerHostname(input.apiServerUrl), ca_file: VALITAIL_PATH.caCert },
        bearer_token_file: VALITAIL_PATH.authToken,
        namespaces: { names: ['kube-system'] },
      },
    ],
    relabel_configs: [
      {
        action: 'drop',
        regex: '',
        separator: '',
        source_labels: [
          podLabel('gardener_cloud_role'),
          podLabel('origin'),
          podLabel('resources_gardener_cloud_managed_by'),
        ],
      },
      {
        action: 'replace',
        regex: '.+',
        replacement: 'gardener',
        source_labels: [podLabel('gardener_cloud_role')],
        target_label: podLabel('origin'),
      },
      {
        action: 'replace',
        regex: 'gardener',
        replacement: 'gardener',
        source_labels: [podLabel('resources_gardener_cloud_managed_by')],
        target_label: podLabel('origin'),
      },
      { action: 'keep', regex: 'gardener', source_labels: [podLabel('origin')] },
      {
        action: 'replace',
        regex: '',
        replacement: 'default',
        source_labels: [podLabel('gardener_cloud_role')],
        target_label: podLabel('gardener_cloud_role'),
      },
      { source_labels: ['__meta_kubernetes_pod_node_name'], target_label: '__host__' },
      { source_labels: ['__meta_kubernetes_pod_node_name'], target_label: 'nodename' },
      { action: 'replace', source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace_name' },
      { action: 'replace', source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod_name' },
      { action: 'replace', source_labels: ['__meta_kubernetes_pod_uid'], target_label: 'pod_uid' },
      {
        action: 'replace',
        source_labels: ['__meta_kubernetes_pod_container_name'],
        target_label: 'container_name',
      },
      {
        replacement: '/var/log/pods/*$1/*.log',
        separator: '/',
        source_labels: ['__meta_kubernetes_pod_uid', '__meta_kubernetes_pod_container_name'],
        target_label: '__path__',
      },
      { source_labels: [podLabel('gardener_cloud_role')], target_label: 'gardener_cloud_role' },
      { source_labels: [podLabel('origin')], replacement: 'shoot_system', target_label: 'origin' },
    ],
  };
}

export function valitailConfig(input: ValitailConfigInput): string {
  const combineJournal = {
    ...journalJob('combine-journal', 'systemd-combine-journal', 'drop'),
    // Everything but the important units is packed into one line per entry, with its unit inside.
    pipeline_stages: [{ pack: { labels: ['unit'], ingest_timestamp: true } }],
  };
  return stringifyYaml({
    server: { disable: true, log_level: 'info', http_listen_port: 3001 },
    client: {
      url: `https://${input.valiIngress}/vali/api/v1/push`,
      batchwait: '10s',
      batchsize: 1536000,
      bearer_token_file: VALITAIL_PATH.authToken,
      tls_config: { ca_file: VALITAIL_PATH.caCert, server_name: input.valiIngress },
    },
    positions: { filename: '/var/log/positions.yaml' },
    scrape_configs: [
      journalJob('journal', 'systemd-journal', 'keep'),
      combineJournal,
      gardenerPodsJob(input),
    ],
  });
}
