/**
 * The differences docs/compatibility.md declares, made checkable: each entry names the id of its
 * row on that page and says which differences the oracle finds it covers. A difference no entry
 * covers fails the compat suite; so does an entry that covers nothing, and an id the page lacks.
 */
import { parseYaml } from '../../../api/index.js';
import { type Check, type Difference, deepEqual, itemPath } from './difference.js';

export interface Declaration {
  /** The row's id on docs/compatibility.md. */
  readonly id: string;
  readonly check: Check;
  /** What this entry covers, in a few words (shown when it covers nothing). */
  readonly what: string;
  readonly covers: (d: Difference) => boolean;
}

/** Our ManagedResource secret with the shoot's registry CA objects (V150-4). */
const REGISTRY_CA_SECRET = 'managedresource-shoot-gardener-node-agent-registry-ca-bundle';

/** A logical ManagedResource (compare-render-v150.ts) without our registry CA secret. */
function withoutRegistryCaSecret(mr: unknown): unknown {
  // biome-ignore lint/suspicious/noExplicitAny: a plain JSON document
  const o = mr as any;
  const other = (names: unknown) => ((names ?? []) as string[]).filter((n) => n !== REGISTRY_CA_SECRET);
  return {
    ...o,
    metadata: { ...o?.metadata, annotations: other(o?.metadata?.annotations) },
    spec: { ...o?.spec, secretRefs: other(o?.spec?.secretRefs) },
  };
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const contentOf = (d: Difference, path: string) => d.field === 'content' && itemPath(d) === path;

/** Image-like references (`repo/name:tag`) in a text. */
function images(text: string): string[] {
  return [...new Set(text.match(/[\w.-]+(?:\/[\w.-]+)+:[\w.+-]+/g) ?? [])].sort();
}

/** The certificates of a PEM bundle, or of the base64 `apiServer.caBundle` of a node agent config. */
function certificates(text: string): string[] {
  let pem = text;
  if (text.startsWith('apiServer:')) {
    const config = parseYaml(text) as { apiServer?: { caBundle?: string } };
    pem = Buffer.from(config.apiServer?.caBundle ?? '', 'base64').toString('utf8');
  }
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
}

/** YAML texts that differ in bytes only (key order, quoting), not in value. */
function sameYamlValue(a: string, b: string): boolean {
  try {
    return JSON.stringify(sortKeys(parseYaml(a))) === JSON.stringify(sortKeys(parseYaml(b)));
  } catch {
    return false;
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** Scripts a node runs: ours by policy, doing the same job (id 13). */
const OUR_SCRIPTS = [
  '/opt/bin/health-monitor-containerd',
  '/opt/bin/init-containerd',
  '/opt/bin/health-monitor-kubelet',
  '/var/lib/gardener-user/run.sh',
  '/var/lib/sshd-ensurer/run.sh',
  '/var/lib/ssl/update-local-ca-certificates.sh',
  '/var/lib/cloud-config-downloader/download-cloud-config.sh',
  '/var/lib/valitail/scripts/fetch-token.sh',
];

const NODE_AGENT_STATE = '/var/lib/gardener-node-agent/last-applied-osc.yaml';

const DECLARED: readonly Declaration[] = [
  {
    id: 'V150-2',
    check: 'render-v1.150',
    what: "gardener-user's run.sh is ours, in the OSCs and in the OSC secrets' osc.yaml",
    covers: (d) => contentOf(d, '/var/lib/gardener-user/run.sh'),
  },
  {
    id: 'V150-3',
    check: 'render-v1.150',
    what: "the log shipper's shoot-access secret is part of the render (gardenlet's observability component writes it)",
    covers: (d) =>
      (d.subject === 'Secret shoot-access-opentelemetry-collector' ||
        d.subject === 'Secret shoot-access-valitail') &&
      d.ours === 'rendered' &&
      d.upstream === 'not rendered',
  },
  {
    id: 'V150-4',
    check: 'render-v1.150',
    what: "the shoot's registry-ca-bundle ConfigMap, Role and RoleBinding are part of the render (gardenlet's shoot-system writes them)",
    covers: (d) =>
      (d.subject === `Secret ${REGISTRY_CA_SECRET}` &&
        d.ours === 'rendered' &&
        d.upstream === 'not rendered') ||
      (d.subject === 'ManagedResource shoot-gardener-node-agent' &&
        d.field === 'object (secret names without hashes)' &&
        deepEqual(withoutRegistryCaSecret(d.ours), d.upstream)),
  },
  {
    id: '1',
    check: 'validate',
    what: 'Kubernetes 1.30+ in the NodeAgentConfiguration (upstream validates 1.25-1.29)',
    covers: (d) =>
      d.field === 'NodeAgentConfiguration validation' &&
      Array.isArray(d.upstream) &&
      d.upstream.every((e) =>
        /kubernetesVersion: .*unsupported kubernetes version "1\.(3\d|[4-9]\d)\./.test(String(e)),
      ),
  },
  {
    id: '10',
    check: 'render',
    what: "osc.yaml leaves out the OSC's timestamp and operation annotations",
    covers: (d) =>
      d.subject.endsWith('osc.yaml') &&
      /^metadata\.annotations\[gardener\.cloud\/(timestamp|operation)\]$/.test(d.field) &&
      d.ours === undefined,
  },
  {
    id: '10',
    check: 'osc-secret',
    what: "osc.yaml leaves out volatile annotations and inlines the extension's secret references",
    covers: (d) => d.field === 'osc.yaml' && /volatile|extension/.test(d.subject),
  },
  {
    id: '11',
    check: 'render',
    what: 'init.sh: our script, pulling the same image',
    covers: (d) =>
      contentOf(d, '/var/lib/gardener-node-agent/init.sh') &&
      images(str(d.ours)).join() === images(str(d.upstream)).join(),
  },
  {
    id: '12',
    check: 'render',
    what: 'init.sh unmounts the image before it hands over to bootstrap',
    covers: (d) =>
      contentOf(d, '/var/lib/gardener-node-agent/init.sh') && /\nunmount\ntrap - EXIT\n/.test(str(d.ours)),
  },
  {
    id: '13',
    check: 'render',
    what: 'scripts are ours; the valitail config has the same values',
    covers: (d) =>
      d.field === 'content' &&
      (OUR_SCRIPTS.includes(itemPath(d) ?? '') ||
        (itemPath(d) === '/var/lib/valitail/config/config' && sameYamlValue(str(d.ours), str(d.upstream)))),
  },
  {
    id: '14',
    check: 'render',
    what: 'health-monitor-containerd probes under a timeout',
    covers: (d) => contentOf(d, '/opt/bin/health-monitor-containerd') && /timeout /.test(str(d.ours)),
  },
  {
    id: '15',
    check: 'render',
    what: 'init-containerd edits by rename, with the same pause image',
    covers: (d) =>
      contentOf(d, '/opt/bin/init-containerd') &&
      images(str(d.ours)).join() === images(str(d.upstream)).join() &&
      /mv -f/.test(str(d.ours)),
  },
  {
    id: '16',
    check: 'render',
    what: 'valitail fetch-token.sh writes the token by rename',
    covers: (d) => contentOf(d, '/var/lib/valitail/scripts/fetch-token.sh'),
  },
  {
    id: '17',
    check: 'render',
    what: 'gardener-user run.sh with sshd StrictModes modes',
    covers: (d) => contentOf(d, '/var/lib/gardener-user/run.sh'),
  },
  {
    id: '19',
    check: 'render',
    what: "a pool's CA bundle holds no other pool's CA",
    covers: (d) => {
      const path = itemPath(d) ?? '';
      if (d.field !== 'content' || !/ROOTcerts\.(pem|crt)$|\/gardener-node-agent\/config\.yaml$/.test(path))
        return false;
      // Ours: the shoot's bundle, then the pool's CA. Upstream appends pool CAs to one shared string
      // from parallel goroutines: after the shoot's bundle come one or more pool CAs, in any order
      // and number (its own may even be missing).
      const ours = certificates(str(d.ours));
      const theirs = certificates(str(d.upstream));
      const shoot = ours.slice(0, -1);
      return ours.length >= 1 && theirs.length > ours.length - 1 && shoot.every((c, i) => theirs[i] === c);
    },
  },
  {
    id: '20',
    check: 'render',
    what: 'the executor secret says where its cloud config came from',
    covers: (d) =>
      d.field === 'metadata.annotations[node-configuration.gardener.cloud/cloud-config-source]' &&
      d.upstream === undefined,
  },
  {
    id: '21',
    check: 'render',
    what: "the downloader's shoot-access secret only while legacy nodes remain",
    covers: (d) => d.subject === 'Secret shoot-access-cloud-config-downloader' && d.ours === 'not rendered',
  },
  {
    id: '22',
    check: 'render',
    what: 'the legacy executor script is ours',
    covers: (d) => d.field === 'data[script]' && /secret__kube-system__cloud-config-/.test(d.subject),
  },
  {
    id: '23',
    check: 'render',
    what: 'update-local-ca-certificates.sh copies only what is there',
    covers: (d) =>
      contentOf(d, '/var/lib/ssl/update-local-ca-certificates.sh') && /nullglob/.test(str(d.ours)),
  },
  {
    id: '24',
    check: 'osc-secret',
    what: 'a secret reference to a missing data key is an error',
    covers: (d) => d.field === 'result' && /has no data key/.test(str(d.ours)) && d.upstream === 'written',
  },
  {
    id: 'N1',
    check: 'node-agent',
    what: "a removed unit's drop-in directory keeps what the OSC still delivers",
    covers: (d) =>
      d.field === 'exists' &&
      d.ours === true &&
      d.upstream === false &&
      /^(file|dir) \/etc\/systemd\/system\/[^/]+\.d(\/|$)/.test(d.item),
  },
  {
    id: 'N8',
    check: 'node-agent',
    what: 'exact modes (upstream: umask 022), last-applied-osc.yaml 0600',
    covers: (d) => {
      if (d.field !== 'mode') return false;
      const ours = Number.parseInt(str(d.ours), 8);
      const theirs = Number.parseInt(str(d.upstream), 8);
      if (d.item === `file ${NODE_AGENT_STATE}`) return ours === 0o600 && theirs === 0o644;
      return (ours & ~0o022) === theirs;
    },
  },
  {
    id: 'N20',
    check: 'render',
    what: 'health-monitor-kubelet never reboots',
    covers: (d) =>
      contentOf(d, '/opt/bin/health-monitor-kubelet') &&
      /reboot/.test(str(d.upstream)) &&
      !/sudo reboot/.test(str(d.ours)),
  },
  {
    id: 'N25',
    check: 'node-agent',
    what: 'daemon-reload only when what systemd reads changed',
    covers: (d) => {
      if (d.field !== 'systemd calls' || !Array.isArray(d.ours) || !Array.isArray(d.upstream)) return false;
      return JSON.stringify([...d.ours, 'daemon-reload'].sort()) === JSON.stringify([...d.upstream].sort());
    },
  },
  {
    id: 'N26',
    check: 'node-agent',
    what: 'enable and disable calls: enables first, then disables',
    covers: (d) => d.field === 'enable/disable order',
  },
  {
    id: 'V150-25',
    check: 'node-agent-v1.150',
    what: "upstream's last-computed-osc-changes.yaml (ours: the crash journal, removed after the apply)",
    covers: (d) =>
      d.field === 'exists' &&
      d.item === 'file /var/lib/gardener-node-agent/last-computed-osc-changes.yaml' &&
      d.ours === false,
  },
  {
    id: 'V150-28',
    check: 'node-agent-v1.150',
    what: 'daemon-reload only when what systemd reads changed, once per apply',
    covers: (d) => {
      if (!d.field.startsWith('systemd calls') || !Array.isArray(d.ours) || !Array.isArray(d.upstream))
        return false;
      const reloads = (calls: unknown[]) => calls.filter((c) => c === 'daemon-reload').length;
      const rest = (calls: unknown[]) => JSON.stringify(calls.filter((c) => c !== 'daemon-reload'));
      return (
        rest(d.ours) === rest(d.upstream) && reloads(d.ours) < reloads(d.upstream) && reloads(d.ours) <= 1
      );
    },
  },
];

/** The multiset `a` minus `b`. */
function without(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  const rest = [...a];
  for (const x of b) {
    const i = rest.indexOf(x);
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

/**
 * N33: with least disruption on (the agent's default) our calls are upstream's but for restarts of
 * units whose change systemd would not act on; nothing else differs.
 */
const N33: Declaration = {
  id: 'N33',
  check: 'node-agent-defaults',
  what: 'least disruption by default: no restart for a change systemd does not act on',
  covers: (d) => {
    if (!d.field.startsWith('systemd calls') || !Array.isArray(d.ours) || !Array.isArray(d.upstream))
      return false;
    if (without(d.ours, d.upstream).length > 0) return false;
    const skipped = without(d.upstream, d.ours);
    return skipped.length > 0 && skipped.every((c) => typeof c === 'string' && c.startsWith('restart '));
  },
};

/**
 * Every difference of check 3 with our `apply` at its default (`--disruption-policy defaults`):
 * those of the exact-upstream mode (`none`), and N33.
 */
export const DECLARATIONS: readonly Declaration[] = [
  ...DECLARED,
  ...DECLARED.filter((x) => x.check === 'node-agent').map((x) => ({
    ...x,
    check: 'node-agent-defaults' as const,
  })),
  N33,
];

export function uncovered(check: Check, found: readonly Difference[]): Difference[] {
  const mine = DECLARATIONS.filter((x) => x.check === check);
  return found.filter((d) => !mine.some((x) => x.covers(d)));
}

/** Entries of a check that covered none of the differences it found: the page says too much. */
export function unused(check: Check, found: readonly Difference[]): Declaration[] {
  return DECLARATIONS.filter((x) => x.check === check && !found.some((d) => x.covers(d)));
}
