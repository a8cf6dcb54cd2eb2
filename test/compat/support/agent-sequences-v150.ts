/**
 * The OSC sequence both v1.150.0 node agents apply (node-agent-case-v150.ts): the reference pool's
 * osc.yaml as gardenlet v1.150.0 renders it (the gardener-oracle-150 `render` op), then registries
 * added (one with a readiness probe) and one removed, containerd plugin operations, a cgroup-driver change, files for this host and
 * another, a kubelet change, and an extension's units, drop-ins and files coming and going.
 */
import { parseYaml, stringifyYaml } from '../../../api/index.js';
import type { AgentSequence, AgentStep } from './node-agent-case.js';
import type { Oracle150 } from './oracle-150.js';
import { registryObjects } from './rendered-documents.js';
import { referencePoolCluster, renderV150 } from './v150-render.js';

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents, edited by path
type Json = any;

const b64 = (text: string) => Buffer.from(text).toString('base64');
const inline = (path: string, text: string, extra: Json = {}): Json => ({
  path,
  content: { inline: { encoding: 'b64', data: b64(text) } },
  ...extra,
});

/** The pool's osc.yaml in the shoot Secret gardenlet v1.150.0 writes, for a Cluster. */
async function poolOscYaml(oracle: Oracle150, cluster: Json): Promise<string> {
  const seed = await renderV150(oracle, cluster);
  const managed = seed.find(
    (o) =>
      o.kind === 'Secret' &&
      o.metadata.name.startsWith('managedresource-shoot-gardener-node-agent-worker-a-'),
  );
  const secret = registryObjects(managed).find((o) => o.kind === 'Secret' && o.data?.['osc.yaml']);
  if (!secret) throw new Error('no OSC secret of pool worker-a in the render');
  return Buffer.from(secret.data['osc.yaml'], 'base64').toString('utf8');
}

/**
 * `registryUrl`: a registry host both agents can reach (the test's HTTP server); the registry with
 * a readiness probe points there.
 */
export async function agentSequenceV150(oracle: Oracle150, registryUrl: string): Promise<AgentSequence> {
  const first = await poolOscYaml(oracle, referencePoolCluster());
  const withKubelet = referencePoolCluster();
  withKubelet.spec.shoot.spec.kubernetes.kubelet = { maxPods: 120 };
  const kubeletChanged = await poolOscYaml(oracle, withKubelet);

  const steps: AgentStep[] = [{ name: 'first apply of the pool', osc: first }];
  let current: Json = parseYaml(first);
  const next = (name: string, edit: (osc: Json) => void) => {
    current = structuredClone(current);
    edit(current);
    steps.push({ name, osc: stringifyYaml(current) });
  };
  const containerdOf = (osc: Json) => {
    osc.spec.criConfig.containerd ??= {};
    return osc.spec.criConfig.containerd;
  };

  next('a registry added', (osc) => {
    containerdOf(osc).registries = [
      {
        upstream: 'docker.io',
        server: 'https://registry-1.docker.io',
        hosts: [{ url: 'https://mirror.example.com', capabilities: ['pull'] }],
      },
      { upstream: 'ghcr.io', hosts: [{ url: 'https://ghcr-mirror.example.com', caCerts: ['/etc/ca.pem'] }] },
      { upstream: 'quay.io', hosts: [{ url: registryUrl }], readinessProbe: true },
    ];
  });
  next('a registry removed', (osc) => {
    containerdOf(osc).registries = containerdOf(osc).registries.filter(
      (r: Json) => r.upstream !== 'docker.io',
    );
  });
  next('a plugin added', (osc) => {
    containerdOf(osc).plugins = [
      {
        path: ['io.containerd.grpc.v1.cri', 'containerd', 'runtimes', 'runsc'],
        values: { runtime_type: 'io.containerd.runsc.v1' },
      },
      { path: ['io.containerd.grpc.v1.cri', 'registry', 'mirrors'] },
    ];
  });
  next('a plugin removed', (osc) => {
    containerdOf(osc).plugins = [
      { op: 'remove', path: ['io.containerd.grpc.v1.cri', 'containerd', 'runtimes', 'runsc'] },
    ];
  });
  next('cgroup driver cgroupfs', (osc) => {
    osc.spec.criConfig.cgroupDriver = 'cgroupfs';
  });
  next('files for this host and another', (osc) => {
    osc.spec.files.push(
      inline('/etc/host-specific/mine', 'for node-1\n', { hostName: 'node-1', permissions: 0o644 }),
      inline('/etc/host-specific/theirs', 'for node-2\n', { hostName: 'node-2' }),
      inline('/etc/host-specific/everyone', 'for all\n'),
    );
  });
  next('an extension unit with a drop-in and a file', (osc) => {
    osc.spec.units.push({
      name: 'ext-agent.service',
      command: 'start',
      enable: true,
      content:
        '[Unit]\nDescription=extension agent\n[Service]\nExecStart=/opt/ext/agent.sh\n[Install]\nWantedBy=multi-user.target\n',
      dropIns: [{ name: '10-env.conf', content: '[Service]\nEnvironment=A=1\n' }],
      filePaths: ['/opt/ext/agent.sh'],
    });
    osc.spec.files.push(
      inline('/opt/ext/agent.sh', '#!/bin/sh\nexec sleep infinity\n', { permissions: 0o755 }),
    );
  });
  next('the extension unit removed', (osc) => {
    osc.spec.units = osc.spec.units.filter((u: Json) => u.name !== 'ext-agent.service');
    osc.spec.files = osc.spec.files.filter((f: Json) => f.path !== '/opt/ext/agent.sh');
  });
  // The kubelet change comes from gardenlet: its render of the same pool with maxPods 120, and
  // with it everything the steps above added goes again.
  steps.push({ name: 'a kubelet change (and back to the render)', osc: kubeletChanged });
  return { name: 'v1.150.0 reference pool', steps };
}
