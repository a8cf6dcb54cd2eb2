/**
 * The log shipper of the Gardener v1.150.0 contract behind gardenlet's `OpenTelemetryCollector`
 * feature gate, on by default (GEP-34, v1.131.0 #12846; gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/opentelemetrycollector/component.go):
 * the collector as a resource-capped unit that waits for its token, a health check that restarts
 * it when its metrics endpoint stops answering (v1.145.0), its config, CA, kubeconfig and the
 * binary from its image. Nothing when node logging is off.
 */
import { type OscFile, type OscUnit, stringifyYaml } from '../../api/index.js';
import { b64, type ComponentOutput, NO_OUTPUT, plain } from '../component.js';
import { openTelemetryCollectorConfig } from './config.js';

const DIR = '/var/lib/opentelemetry-collector';

export const OPENTELEMETRY_COLLECTOR_PATH = {
  authToken: `${DIR}/auth-token`,
  config: `${DIR}/config/config`,
  caCert: `${DIR}/ca.crt`,
  kubeconfig: `${DIR}/kubeconfig`,
  binary: '/opt/bin/opentelemetry-collector',
} as const;

export const OPENTELEMETRY_COLLECTOR_UNIT = {
  collector: 'opentelemetry-collector.service',
  healthCheck: 'opentelemetry-collector-healthcheck.service',
  healthCheckTimer: 'opentelemetry-collector-healthcheck.timer',
} as const;

const METRICS_PORT = 18888;
const MEMORY_LIMIT_MIB = 2000;
/** Go's runtime soft limit at 80% of what the collector's memory limiter allows. */
const GO_MEMORY_LIMIT = `${Math.trunc(0.8 * MEMORY_LIMIT_MIB)}MiB`;
const MODE_OWNER_READ = 0o400;
const MODE_OWNER_RWX = 0o700;
const MODE_OWNER_RW = 0o600;

const P = OPENTELEMETRY_COLLECTOR_PATH;
const U = OPENTELEMETRY_COLLECTOR_UNIT;

const COLLECTOR_UNIT = [
  '[Unit]',
  'Description=opentelemetry-collector daemon',
  'Documentation=https://github.com/open-telemetry/opentelemetry-collector',
  '[Install]',
  'WantedBy=multi-user.target',
  '[Service]',
  'CPUAccounting=yes',
  'MemoryAccounting=yes',
  'CPUQuota=3%',
  'CPUQuotaPeriodSec=1000ms',
  'MemoryMin=29M',
  'MemoryHigh=400M',
  'MemoryMax=800M',
  'MemorySwapMax=0',
  'Restart=always',
  'RestartSec=5',
  'EnvironmentFile=/etc/environment',
  `Environment=KUBECONFIG=${P.kubeconfig}`,
  `ExecStartPre=/bin/sh -c "systemctl set-environment HOSTNAME=$(hostname | tr [:upper:] [:lower:]) GOMEMLIMIT=${GO_MEMORY_LIMIT}"`,
  `ExecStartPre=/bin/sh -c "test -s ${P.authToken}"`,
  `ExecStart=${P.binary} --config=${P.config}`,
].join('\n');

const HEALTH_CHECK_UNIT = [
  '[Unit]',
  `Description=Health check for ${U.collector}`,
  `After=${U.collector}`,
  `Requisite=${U.collector}`,
  '[Service]',
  'Type=oneshot',
  `ExecStopPost=/bin/sh -c '[ "$SERVICE_RESULT" = "success" ] || systemctl restart ${U.collector}'`,
  '# Note: We intentionally curl the /metrics endpoint rather than /healthz.',
  '# We know that /metrics reliably times out when there are issues such as file descriptor leaks.',
  '# If we can verify that /healthz behaves the same, we should switch to using it instead,',
  '# since health checks are typically expected to target /healthz rather than /metrics.',
  `ExecStart=/usr/bin/curl -fsS --max-time 15 http://127.0.0.1:${METRICS_PORT}/metrics`,
].join('\n');

const HEALTH_CHECK_TIMER = [
  '[Unit]',
  `Description=Run ${U.healthCheck} every 5 minutes to validate that ${U.collector} is working as expected`,
  '[Install]',
  'WantedBy=timers.target',
  '[Timer]',
  'OnBootSec=15min',
  'OnUnitActiveSec=5min',
  'AccuracySec=1min',
  `Unit=${U.healthCheck}`,
].join('\n');

/** The kubeconfig client-go writes (clientcmd latest codec) for cluster, context and user `shoot`. */
function kubeconfig(apiServerUrl: string): string {
  return stringifyYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'shoot', cluster: { server: apiServerUrl, 'certificate-authority': P.caCert } }],
    contexts: [{ name: 'shoot', context: { cluster: 'shoot', user: 'shoot' } }],
    'current-context': 'shoot',
    users: [{ name: 'shoot', user: { tokenFile: P.authToken } }],
  });
}

export interface OpenTelemetryCollectorInput {
  /** Node logging on (the shoot's logging and gardenlet's configuration allow it). */
  readonly enabled: boolean;
  /** The collector's ingress host in the seed, `otc-<short technical ID>.<ingress domain>`. */
  readonly ingressHost: string;
  /** The component context's CA bundle. */
  readonly caBundle: string;
  readonly apiServerUrl: string;
  /** `opentelemetry-collector` of the image vector. */
  readonly image: string;
}

export function openTelemetryCollector(input: OpenTelemetryCollectorInput): ComponentOutput {
  if (!input.enabled) return NO_OUTPUT;
  if (input.ingressHost === '') throw new Error('opentelemetry-collector ingress url is missing');
  const config = openTelemetryCollectorConfig({
    clientUrl: `${input.ingressHost}:443`,
    caCert: P.caCert,
    authToken: P.authToken,
    metricsPort: METRICS_PORT,
    memoryLimitMiB: MEMORY_LIMIT_MIB,
  });
  const files: OscFile[] = [
    { path: P.config, permissions: MODE_OWNER_READ, content: b64(config) },
    { path: P.caCert, permissions: MODE_OWNER_READ, content: b64(input.caBundle) },
    {
      path: P.binary,
      permissions: MODE_OWNER_RWX,
      content: { imageRef: { image: input.image, filePathInImage: '/bin/otelcol' } },
    },
    { path: P.kubeconfig, permissions: MODE_OWNER_RW, content: plain(kubeconfig(input.apiServerUrl)) },
  ];
  const units: OscUnit[] = [
    {
      name: U.collector,
      command: 'start',
      enable: true,
      content: COLLECTOR_UNIT,
      filePaths: [P.config, P.caCert, P.binary, P.kubeconfig],
    },
    { name: U.healthCheck, command: 'start', enable: false, content: HEALTH_CHECK_UNIT },
    { name: U.healthCheckTimer, command: 'start', enable: true, content: HEALTH_CHECK_TIMER },
  ];
  return { units, files };
}
