/**
 * The controller-manager as a Helm chart, for a Gardener ControllerDeployment (gardenlet renders it
 * with Helm into the seed namespace `extension-<installation>`). The templates are the objects of
 * `renderControllerManager` (the same cdk8s chart as `gardener-osc manifests`), rendered once with
 * placeholders that are then replaced by template expressions; with the same inputs, Helm renders
 * exactly what `manifests` prints (test/charts/helm-chart.test.ts checks it with Helm itself).
 *
 * Values: `image`, `replicas`, `priorityClassName` and `config` (the ControllerManagerConfiguration
 * document); gardenlet adds `gardener.*`, which the chart does not need.
 */
import { gzipSync } from 'node:zlib';
import { stringifyYaml } from '../../api/index.js';
import { VERSION } from '../../api/version.js';
import { tarBuffer } from '../tar.js';
import { CONTROLLER_MANAGER_NAME, renderControllerManager } from './controller-manager.js';

export const CHART_NAME = CONTROLLER_MANAGER_NAME;

export interface ChartValues {
  readonly image: string;
  readonly replicas: number;
  readonly priorityClassName?: string;
  readonly config: Record<string, unknown>;
}

const config = (path: string, fallback: string | number) =>
  `(dig ${path
    .split('.')
    .map((k) => JSON.stringify(k))
    .join(' ')} ${JSON.stringify(fallback)} .Values.config)`;

/** Placeholder → template expression; numbers are placeholders wherever they appear. */
const PLACEHOLDERS = {
  namespace: { value: 'HELM-NAMESPACE', template: '{{ .Release.Namespace }}' },
  image: { value: 'HELM-IMAGE', template: '{{ .Values.image | quote }}' },
  lease: {
    value: 'HELM-LEASE-NAME',
    template: `{{ ${config('leaderElection.name', CONTROLLER_MANAGER_NAME)} | quote }}`,
  },
  checksum: {
    value: 'HELM-CONFIG-CHECKSUM',
    template: '{{ printf "%s\\n" (toYaml .Values.config) | sha256sum | quote }}',
  },
  replicas: { value: 987654301, template: '{{ .Values.replicas }}' },
  metricsPort: { value: 987654302, template: `{{ ${config('server.metrics.port', 8080)} }}` },
  healthPort: { value: 987654303, template: `{{ ${config('server.healthProbes.port', 8081)} }}` },
} as const;

/** Whole lines: the configuration as a literal block, the priority class only when one is given. */
const LINE_PLACEHOLDERS = {
  config: {
    value: 'HELM-CONFIG',
    line: (indent: string, key: string) =>
      `${indent}${key}: |\n{{ toYaml .Values.config | indent ${indent.length + 2} }}`,
  },
  priorityClass: {
    value: 'HELM-PRIORITY-CLASS',
    line: (indent: string, key: string) =>
      `{{- with .Values.priorityClassName }}\n${indent}${key}: {{ . | quote }}\n{{- end }}`,
  },
} as const;

function templateOf(yaml: string): string {
  let text = yaml;
  for (const { value, line } of Object.values(LINE_PLACEHOLDERS)) {
    text = text.replace(new RegExp(`^( *)([\\w./-]+): ${value}$`, 'gm'), (_, indent: string, key: string) =>
      line(indent, key),
    );
  }
  for (const { value, template } of Object.values(PLACEHOLDERS))
    text = text.replaceAll(String(value), template);
  const left = [...Object.values(PLACEHOLDERS), ...Object.values(LINE_PLACEHOLDERS)].find((p) =>
    text.includes(String(p.value)),
  );
  if (left) throw new Error(`helm chart: placeholder ${left.value} was not replaced`);
  return text;
}

/** templates/<kind>.yaml for every object of the seed manifests. */
export function chartTemplates(): Map<string, string> {
  const objects = renderControllerManager({
    namespace: PLACEHOLDERS.namespace.value,
    image: PLACEHOLDERS.image.value,
    replicas: PLACEHOLDERS.replicas.value,
    priorityClassName: LINE_PLACEHOLDERS.priorityClass.value,
    leaseName: PLACEHOLDERS.lease.value,
    configText: LINE_PLACEHOLDERS.config.value,
    configChecksum: PLACEHOLDERS.checksum.value,
    metricsPort: PLACEHOLDERS.metricsPort.value,
    healthPort: PLACEHOLDERS.healthPort.value,
  });
  const templates = new Map<string, string>();
  for (const object of objects) {
    const file = `templates/${String(object.kind).toLowerCase()}.yaml`;
    if (templates.has(file)) throw new Error(`helm chart: two objects of kind ${object.kind}`);
    templates.set(file, templateOf(stringifyYaml(object)));
  }
  return templates;
}

export function chartFiles(values: ChartValues): Map<string, string> {
  const chart = {
    apiVersion: 'v2',
    name: CHART_NAME,
    description:
      "gardener-osc's controller-manager: Gardener's seed-side node configuration and the os-local OS extension",
    type: 'application',
    version: VERSION,
    appVersion: VERSION,
  };
  return new Map([
    ['Chart.yaml', stringifyYaml(chart)],
    ['values.yaml', stringifyYaml(values)],
    ...chartTemplates(),
  ]);
}

/** The chart as Helm packages it (`<name>/Chart.yaml`, ...), gzipped tar; the same values give the same bytes. */
export function chartArchive(values: ChartValues): Buffer {
  const entries = [...chartFiles(values)].map(([path, text]) => ({
    name: `${CHART_NAME}/${path}`,
    type: 'file' as const,
    mode: 0o644,
    data: Buffer.from(text, 'utf8'),
  }));
  return gzipSync(tarBuffer(entries));
}
