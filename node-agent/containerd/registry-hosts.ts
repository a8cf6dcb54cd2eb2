/**
 * Registries as gardener v1.150.0's agent configures them for containerd (containerd.go
 * `addRegistryToContainerdFunc`, templates/containerd-hosts.toml.tpl; changes.go
 * `computeContainerdRegistryDiffs`): every desired registry's
 * `/etc/containerd/certs.d/<upstream>/hosts.toml` (0644) is written on every apply, the
 * directories of upstreams no longer desired are removed. The text is the template's output:
 * sprig's `quote` is Go's %q, `toJson` Go's encoding/json.
 */
import type { OperatingSystemConfig } from '../../api/index.js';
import { CONTAINERD } from './containerd-paths.js';

type Registry = NonNullable<
  NonNullable<NonNullable<OperatingSystemConfig['spec']['criConfig']>['containerd']>['registries']
>[number];

const DEFAULT_CAPABILITIES = ['pull', 'resolve'];

/** Go's `strconv.Quote` for the text a registry configuration holds. */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const named: Record<string, string> = {
      '"': '\\"',
      '\\': '\\\\',
      '\u0007': '\\a',
      '\b': '\\b',
      '\f': '\\f',
      '\n': '\\n',
      '\r': '\\r',
      '\t': '\\t',
      '\u000b': '\\v',
    };
    if (named[char] !== undefined) out += named[char];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** Go's `json.Marshal` of a list of strings (HTML-safe: <, >, & escaped). */
export function goJsonStrings(items: readonly string[]): string {
  const quoted = (s: string) =>
    JSON.stringify(s).replace(
      /[<>&\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  return `[${items.map(quoted).join(',')}]`;
}

export function hostsToml(registry: Registry): string {
  let out = '# managed by gardener-node-agent';
  if (registry.server) out += `\nserver = ${goQuote(registry.server)}\n`;
  for (const host of registry.hosts ?? []) {
    const capabilities = host.capabilities?.length ? host.capabilities : DEFAULT_CAPABILITIES;
    out += `\n[host.${goQuote(host.url)}]\n  capabilities = ${goJsonStrings(capabilities)}`;
    if (host.caCerts?.length) out += `\n  ca = ${goJsonStrings(host.caCerts)}`;
    if (host.overridePath) out += '\n  override_path = true';
    out += '\n';
  }
  return `${out}\n`;
}

export function registryDir(upstream: string): string {
  return `${CONTAINERD.certsDir}/${upstream}`;
}

export interface RegistryChanges {
  readonly desired: readonly Registry[];
  /** Upstreams of the previous OSC no longer desired: their directories are removed. */
  readonly deleted: readonly string[];
  /**
   * Desired upstreams with `readinessProbe` that are new or changed: their hosts are probed before
   * their hosts.toml is written (changes.go `computeContainerdRegistryDiffs`; registry-probe.ts).
   */
  readonly toProbe: readonly string[];
}

/** A registry as Go's semantic equality sees it: empty and absent lists alike, key order ignored. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(canonical);
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => [k, canonical((value as Record<string, unknown>)[k])] as const)
      .filter(([, v]) => v !== undefined);
    return Object.fromEntries(entries);
  }
  return value;
}

const sameRegistry = (a: Registry, b: Registry) =>
  JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

export function registryChanges(
  previous: OperatingSystemConfig | undefined,
  next: OperatingSystemConfig,
): RegistryChanges {
  const desired = next.spec.criConfig?.containerd?.registries ?? [];
  const inUse = new Set(desired.map((r) => r.upstream));
  const before = previous?.spec.criConfig?.containerd?.registries ?? [];
  const toProbe = desired
    .filter((r) => r.readinessProbe === true)
    .filter((r) => {
      const old = before.find((o) => o.upstream === r.upstream);
      return old === undefined || !sameRegistry(old, r);
    })
    .map((r) => r.upstream);
  return { desired, deleted: before.map((r) => r.upstream).filter((u) => !inUse.has(u)), toProbe };
}
