/**
 * The OSC sequences both node agents apply (check 3): a rendered pool through a kubelet change,
 * an OS extension's units and drop-ins coming and going, mode changes with special bits, drop-ins
 * delivered as files, and back to the OSC upstream's own secret builder writes; a hand-written
 * OSC that leaves out what Go reads as zero values; and unit changes systemd does not act on.
 */
import {
  type OperatingSystemConfig,
  type OscFile,
  parseRfc3339,
  parseYaml,
  stringifyYaml,
} from '../../../api/index.js';
import { renderNodeConfiguration } from '../../../charts/node-configuration.js';
import type { AgentSequence } from './node-agent-case.js';
import type { Oracle } from './oracle.js';
import { decodeCase, type RenderCase } from './render-case.js';

const POOL = 'cpu-worker';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const clone = <T>(v: T): T => structuredClone(v);

/** Our OSC secret's osc.yaml for the pool, as the node agent gets it. */
function oscYamlOf(c: RenderCase): string {
  const rendered = renderNodeConfiguration({
    cluster: decodeCase(c),
    values: c.values,
    useGardenerNodeAgent: true,
    legacyNodes: false,
    now: parseRfc3339('2024-06-01T12:00:00Z'),
  });
  const secret = rendered.shoot.find(
    (o) => o.kind === 'Secret' && o.metadata.labels?.['worker.gardener.cloud/pool'] === POOL,
  ) as unknown as { data: Record<string, string> };
  return Buffer.from(secret.data['osc.yaml']!, 'base64').toString('utf8');
}

function reconcileOscOf(c: RenderCase): OperatingSystemConfig {
  const rendered = renderNodeConfiguration({
    cluster: decodeCase(c),
    values: c.values,
    useGardenerNodeAgent: true,
    legacyNodes: false,
    now: parseRfc3339('2024-06-01T12:00:00Z'),
  });
  return rendered.seed.find(
    (o) =>
      o.kind === 'OperatingSystemConfig' &&
      (o.metadata.name ?? '').endsWith('-original') &&
      o.metadata.labels?.['worker.gardener.cloud/pool'] === POOL,
  ) as unknown as OperatingSystemConfig;
}

function withMaxPods(c: RenderCase, maxPods: number): RenderCase {
  const cluster = clone(c.cluster) as { spec: { shoot: { spec: { kubernetes: { kubelet?: object } } } } };
  const kubernetes = cluster.spec.shoot.spec.kubernetes;
  kubernetes.kubelet = { ...kubernetes.kubelet, maxPods };
  return { ...c, cluster: cluster as unknown as Record<string, unknown> };
}

const file = (path: string, text: string, permissions?: number): OscFile => ({
  path,
  ...(permissions === undefined ? {} : { permissions }),
  content: { inline: { encoding: 'b64', data: b64(text) } },
});

export async function agentSequences(oracle: Oracle, example: RenderCase): Promise<AgentSequence[]> {
  const first = oscYamlOf(example);
  const second = oscYamlOf(withMaxPods(example, 120));

  const withExtension = parseYaml(second) as OperatingSystemConfig;
  withExtension.status = {
    extensionUnits: [
      {
        name: 'containerd.service',
        dropIns: [{ name: '20-limits.conf', content: '[Service]\nLimitNOFILE=1048576\n' }],
      },
      {
        name: 'ext-agent.service',
        command: 'start',
        enable: true,
        content:
          '[Unit]\nDescription=extension agent\n[Service]\nExecStart=/opt/ext/agent.sh\n[Install]\nWantedBy=multi-user.target\n',
        dropIns: [{ name: '10-env.conf', content: '[Service]\nEnvironment=A=1\n' }],
        filePaths: ['/opt/ext/agent.sh'],
      },
    ],
    extensionFiles: [file('/opt/ext/agent.sh', '#!/bin/sh\nexec sleep infinity\n', 0o755)],
  };

  const removed = clone(withExtension);
  removed.status = { extensionUnits: [{ name: 'containerd.service' }], extensionFiles: [] };
  removed.spec.units = removed.spec.units?.filter((u) => u.name !== 'valitail.service');
  removed.spec.files = removed.spec.files?.filter((f) => !f.path.startsWith('/var/lib/valitail/'));

  const modes = clone(removed);
  const setMode = (path: string, permissions: number) => {
    const f = modes.spec.files?.find((x) => x.path === path);
    if (f) f.permissions = permissions;
  };
  setMode('/opt/bin/health-monitor-containerd', 0o4755);
  setMode('/var/lib/sshd-ensurer/run.sh', 0o2777);
  setMode('/opt/bin/kubelet', 0o6755);
  setMode('/var/lib/kubelet/ca.crt', 0o666);

  const dropInFiles = clone(modes);
  const requireDropIn = '/etc/systemd/system/containerd.service.d/10-require-containerd-initializer.conf';
  for (const f of dropInFiles.spec.files ?? []) {
    if (f.path === requireDropIn)
      f.content = {
        inline: {
          encoding: 'b64',
          data: b64(
            '[Unit]\nAfter=containerd-initializer.service\nRequires=containerd-initializer.service\n# changed\n',
          ),
        },
      };
  }
  dropInFiles.spec.files?.push(
    file('/etc/systemd/system/kubelet.service.d/40-extra-args.conf', '[Service]\nEnvironment=EXTRA=1\n'),
  );

  // What gardenlet v1.91.4's own OperatingSystemConfigSecret writes for the rendered OSC.
  const upstreamSecret = await oracle.ask<{ secret?: { data: Record<string, string> }; error?: string }>(
    'oscSecret',
    {
      osc: reconcileOscOf(example),
      secrets: [],
      secretName: 'gardener-node-agent-osc',
      pool: POOL,
    },
  );
  if (!upstreamSecret.secret)
    throw new Error(`upstream's OperatingSystemConfigSecret failed: ${upstreamSecret.error}`);
  const upstreamOsc = Buffer.from(upstreamSecret.secret.data['osc.yaml']!, 'base64').toString('utf8');

  const handWritten = [
    'apiVersion: extensions.gardener.cloud/v1alpha1',
    'kind: OperatingSystemConfig',
    'metadata:',
    '  name: hand-written',
    'spec:',
    '  units:',
    '  - name: off.service',
    '    enable: false',
    '    content: "[Service]\\nExecStart=/bin/true\\n"',
    '  - name: on.service',
    '    command: reload',
    '    content: "[Service]\\nExecStart=/bin/true\\n"',
    '    filePaths: [/etc/on/plain]',
    '  - name: os-provided.service',
    '    dropIns:',
    '    - name: 10-hand.conf',
    '      content: "[Service]\\nNice=5\\n"',
    '  files:',
    '  - path: /etc/on/plain',
    '    content:',
    '      inline:',
    '        data: no encoding key means plain text',
    '  - path: /etc/on/empty',
    '    permissions: 420',
    '    content:',
    '      inline: {}',
    '  - path: /etc/on/no-content',
    '  - path: /etc/on/decimal-744',
    '    permissions: 744',
    '    content:',
    '      inline:',
    '        encoding: b64',
    `        data: ${b64('#!/bin/sh\n')}`,
    '',
  ].join('\n');
  const handWrittenChanged = handWritten
    .replace('no encoding key means plain text', 'changed plain text')
    .replace('    enable: false\n', '    enable: true\n');
  // Only a file no unit lists: nothing for systemd to do.
  const fileOnly = handWrittenChanged.replace('      inline: {}', '      inline: {data: now with content}');

  // Changes least disruption treats otherwise than upstream (docs/compatibility.md N33); with
  // `--disruption-policy none` both agents restart the same units.
  const gentle = (unit: string) =>
    stringifyYaml({
      apiVersion: 'extensions.gardener.cloud/v1alpha1',
      kind: 'OperatingSystemConfig',
      metadata: { name: 'least-disruption' },
      spec: {
        type: 't',
        purpose: 'reconcile',
        units: [{ name: 'svc.service', command: 'start', enable: true, content: unit }],
      },
    });
  const SVC = '[Unit]\nDescription=a service\n[Service]\nExecStart=/bin/true\n';

  return [
    {
      name: 'a rendered pool through its life',
      steps: [
        { name: 'first apply', osc: first },
        { name: 'kubelet change (maxPods)', osc: second },
        { name: "an OS extension's unit and drop-ins", osc: stringifyYaml(withExtension) },
        { name: 'units and drop-ins removed', osc: stringifyYaml(removed) },
        { name: 'modes changed, special bits included', osc: stringifyYaml(modes) },
        { name: 'drop-ins delivered as files', osc: stringifyYaml(dropInFiles) },
        { name: "upstream's OSC secret of the rendered OSC", osc: upstreamOsc },
      ],
    },
    {
      name: 'a hand-written OSC with Go zero values',
      steps: [
        { name: 'first apply', osc: handWritten },
        { name: 'changed', osc: handWrittenChanged },
        { name: 'a file no unit lists', osc: fileOnly },
      ],
    },
    {
      name: 'changes least disruption decides',
      steps: [
        { name: 'first apply', osc: gentle(SVC) },
        { name: 'a comment in the unit', osc: gentle(`# a comment\n${SVC}`) },
        {
          name: 'only its Description',
          osc: gentle(`# a comment\n${SVC.replace('a service', 'the service')}`),
        },
      ],
    },
  ];
}
