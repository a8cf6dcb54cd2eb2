/**
 * The controller-manager as a Helm chart, for a Gardener ControllerDeployment (gardenlet renders it
 * with Helm into the seed namespace `extension-<installation>`). The templates are the objects of
 * `renderControllerManager` (the same cdk8s chart as `gardener-osc manifests`), rendered once with
 * placeholders that are then replaced by template expressions; with the same inputs, Helm renders
 * exactly what `manifests` prints (test/charts/helm-chart.test.ts checks it with Helm itself).
 *
 * With per-node identities (`config.nodeAgent.identity: node`, the default) and
 * `config.nodeAgent.authorizer`, the chart serves the node agent authorizer as `manifests` does: its
 * container port on every replica, its serving certificate from the TLS Secret, its Service. Those
 * parts are rendered twice (with and without the authorizer) and what only the first holds is
 * wrapped in a Helm condition on the same values (authorizerTemplates).
 *
 * Values: `image`, `replicas`, `priorityClassName` and `config` (the ControllerManagerConfiguration
 * document); gardenlet adds `gardener.*`, which the chart does not need.
 */
import { gzipSync } from 'node:zlib';
import { stringifyYaml } from '../../api/index.js';
import { VERSION } from '../../api/version.js';
import { tarBuffer } from '../tar.js';
import { CONTROLLER_MANAGER_NAME, renderControllerManager } from './controller-manager.js';
import { insertedRuns } from './line-insertions.js';
import { authorizerServiceName } from './workload.js';

export const CHART_NAME = CONTROLLER_MANAGER_NAME;

export interface ChartValues {
  readonly image: string;
  readonly replicas: number;
  readonly priorityClassName?: string;
  /** A VerticalPodAutoscaler for the Deployment (as Gardener extensions ship one; seeds run VPA). */
  readonly vpa?: { readonly enabled: boolean };
  readonly config: Record<string, unknown>;
}

/** The VerticalPodAutoscaler's template only renders with `vpa.enabled`. */
const VPA_CONDITION = 'and .Values.vpa .Values.vpa.enabled';

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
  authorizerPort: {
    value: 987654304,
    template: `{{ ${config('nodeAgent.authorizer.port', 10443)} }}`,
  },
  authorizerDir: {
    value: 'HELM-AUTHORIZER-DIR',
    template: `{{ dir ${config('nodeAgent.authorizer.certFile', '')} | quote }}`,
  },
  authorizerCertFile: {
    value: 'HELM-AUTHORIZER-CERT-FILE',
    template: `{{ base ${config('nodeAgent.authorizer.certFile', '')} | quote }}`,
  },
  authorizerKeyFile: {
    value: 'HELM-AUTHORIZER-KEY-FILE',
    template: `{{ base ${config('nodeAgent.authorizer.keyFile', '')} | quote }}`,
  },
  authorizerTokenKeyFile: {
    value: 'HELM-AUTHORIZER-TOKEN-KEY-FILE',
    template: `{{ base ${config('nodeAgent.authorizer.tokenKeyFile', '')} | quote }}`,
  },
} as const;

/**
 * When the chart serves the authorizer: as controllerManagerObjects decides (identity `node`, the
 * default, and an authorizer given).
 */
const AUTHORIZER_CONDITION = `and (eq ${config('nodeAgent.identity', 'node')} "node") ${config('nodeAgent.authorizer', '')}`;

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

/** templates/<kind>.yaml for every object of the seed manifests (the authorizer's Service: service-authorizer.yaml). */
function templateFiles(withAuthorizer: boolean, withVpa = false): Map<string, string> {
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
    authorizer: withAuthorizer
      ? {
          port: PLACEHOLDERS.authorizerPort.value,
          dir: PLACEHOLDERS.authorizerDir.value,
          certFile: PLACEHOLDERS.authorizerCertFile.value,
          keyFile: PLACEHOLDERS.authorizerKeyFile.value,
          tokenKeyFile: PLACEHOLDERS.authorizerTokenKeyFile.value,
        }
      : undefined,
    vpa: withVpa,
  });
  const templates = new Map<string, string>();
  for (const object of objects) {
    const kind = String(object.kind).toLowerCase();
    // the authorizer's own objects (its Service) beside the workload's object of the same kind
    const authorizerOwn =
      (object.metadata as { name: string }).name === authorizerServiceName(CONTROLLER_MANAGER_NAME);
    const file = `templates/${kind}${authorizerOwn ? '-authorizer' : ''}.yaml`;
    if (templates.has(file)) throw new Error(`helm chart: two objects for ${file}`);
    templates.set(file, stringifyYaml(object));
  }
  return templates;
}

/**
 * The templates with the authorizer's parts under AUTHORIZER_CONDITION: a file only the authorizer
 * has (its Service) as a whole, in the others each run of lines the authorizer adds (its port,
 * volume mount and volume). The authorizer only adds: a change of a line it shares is an error.
 */
function authorizerTemplates(): Map<string, string> {
  const without = templateFiles(false);
  const templates = new Map<string, string>();
  for (const [file, text] of templateFiles(true)) {
    const base = without.get(file);
    const wrap = (lines: string) => `{{- if ${AUTHORIZER_CONDITION} }}\n${lines}{{- end }}\n`;
    if (base === undefined) templates.set(file, wrap(text));
    else
      templates.set(
        file,
        insertedRuns(base, text)
          .map((run) => (run.inserted ? wrap(run.text) : run.text))
          .join(''),
      );
  }
  return templates;
}

/** The files only a render with the VerticalPodAutoscaler has, under VPA_CONDITION. */
function vpaTemplates(): Map<string, string> {
  const without = templateFiles(false);
  const templates = new Map<string, string>();
  for (const [file, text] of templateFiles(false, true)) {
    if (without.get(file) === text) continue;
    if (without.has(file)) throw new Error(`helm chart: the VerticalPodAutoscaler changes ${file}`);
    templates.set(file, `{{- if ${VPA_CONDITION} }}\n${text}{{- end }}\n`);
  }
  return templates;
}

export function chartTemplates(): Map<string, string> {
  return new Map(
    [...authorizerTemplates(), ...vpaTemplates()].map(([file, text]) => [file, templateOf(text)]),
  );
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
