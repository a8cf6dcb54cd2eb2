/**
 * What the scenario's steps read from the landscape and ask of its nodes: the shoot's OSC secrets
 * per pool, the legacy downloader's files, which legacy objects are left, the Nodes until a
 * condition holds for every one, and the fake image directory the agents copy from.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KubernetesObject, V1Node, V1Secret } from '@kubernetes/client-node';
import {
  LABEL,
  LABEL_VALUE,
  NAME,
  NAMESPACE_KUBE_SYSTEM,
  type OperatingSystemConfig,
  PATH,
  readOscSecret,
  UNIT,
} from '../../api/index.js';
import { type ControllerManager, type Landscape, tail } from './landscape.js';
import type { NodeSpec } from './node.js';
import type { ScenarioNode } from './scenario-node.js';
import { Interrupted, until } from './wait.js';

const AGENT_IMAGE_FILE = '/gardener-node-agent';

export interface PoolSecret {
  readonly pool: string;
  readonly name: string;
  readonly checksum: string;
  readonly raw: string;
  readonly osc: OperatingSystemConfig;
}

/** Adds the controller-manager's log tail to an error (not to an interruption). */
export function withLog(cm: ControllerManager, logFile: string) {
  return (e: unknown): never => {
    if (e instanceof Interrupted) throw e;
    throw new Error(
      `${(e as Error).message}${cm.process.running ? '' : ' (the controller-manager exited)'}\n--- controller-manager log (tail) ---\n${tail(logFile)}`,
    );
  };
}

export function assertNodesHealthy(nodes: readonly ScenarioNode[]): void {
  const broken = nodes.find((n) => n.fatal);
  if (broken) throw new Error(broken.fatal);
}

/**
 * Polls the shoot's Nodes until `done` holds for every node (and `extra`, if given); calls onDone
 * once per node, progress whenever the count changes. A crash-looping agent fails it at once.
 */
export async function watchNodes(o: {
  what: string;
  landscape: Landscape;
  nodes: readonly ScenarioNode[];
  signal: AbortSignal;
  timeoutMs: number;
  done: (node: ScenarioNode, object: V1Node) => boolean;
  onDone: (node: ScenarioNode, at: number) => void;
  progress: (count: number) => void;
  /** Runs first in every poll. */
  onPoll?: () => Promise<void>;
  extra?: () => Promise<boolean>;
}): Promise<void> {
  const finished = new Set<string>();
  let shown = -1;
  let fatal: Error | undefined;
  await until(
    o.what,
    async () => {
      await Promise.all(o.nodes.map((n) => n.refresh()));
      await o.onPoll?.();
      const list = await o.landscape.shootCore.listNode();
      const byName = new Map(list.items.map((n) => [n.metadata?.name ?? '', n]));
      const now = Date.now();
      for (const node of o.nodes) {
        if (node.fatal) fatal = new Error(node.fatal);
        const object = byName.get(node.name);
        if (!finished.has(node.name) && object && o.done(node, object)) {
          finished.add(node.name);
          o.onDone(node, now);
        }
      }
      if (finished.size !== shown) {
        shown = finished.size;
        o.progress(shown);
      }
      if (fatal) return true;
      return finished.size === o.nodes.length && (!o.extra || (await o.extra()));
    },
    { timeoutMs: o.timeoutMs, signal: o.signal, intervalMs: 200 },
  );
  if (fatal) throw fatal;
}

export async function listShootSecrets(landscape: Landscape, labelSelector: string): Promise<V1Secret[]> {
  return (await landscape.shootCore.listNamespacedSecret({ namespace: NAMESPACE_KUBE_SYSTEM, labelSelector }))
    .items;
}

/** The agent's OSC secret of each pool in the shoot. */
export async function poolSecrets(landscape: Landscape): Promise<Map<string, PoolSecret>> {
  const out = new Map<string, PoolSecret>();
  for (const s of await listShootSecrets(
    landscape,
    `${LABEL.gardenerRole}=${LABEL_VALUE.roleOperatingSystemConfig}`,
  )) {
    const pool = s.metadata?.labels?.[LABEL.workerPool];
    if (!pool) continue;
    const { raw, checksum, osc } = readOscSecret(s as Parameters<typeof readOscSecret>[0]);
    out.set(pool, { pool, name: s.metadata?.name ?? '', checksum: checksum ?? '', raw, osc });
  }
  return out;
}

/** The files and unit of each pool's legacy downloader OSC (provision purpose) in the seed. */
export async function legacyDownloaderFiles(
  landscape: Landscape,
): Promise<Map<string, { files: { path: string; mode: number; content: Buffer }[]; unit: string }>> {
  const list = await landscape.seedObjects.list(
    'extensions.gardener.cloud/v1alpha1',
    'OperatingSystemConfig',
    landscape.namespace,
  );
  const out = new Map<string, { files: { path: string; mode: number; content: Buffer }[]; unit: string }>();
  for (const item of list.items as (KubernetesObject & { spec: OperatingSystemConfig['spec'] })[]) {
    if (!item.metadata?.name?.endsWith('-downloader')) continue;
    const pool = item.metadata.labels?.[LABEL.workerPool] ?? '';
    const files: { path: string; mode: number; content: Buffer }[] = [];
    for (const f of item.spec.files ?? []) {
      // the bootstrap token placeholder is replaced per machine and gone once the kubelet has its certificate
      if (f.path === PATH.downloaderBootstrapToken) continue;
      let content: Buffer | undefined;
      if (f.content.inline) {
        const { encoding, data } = f.content.inline;
        content = encoding === 'b64' ? Buffer.from(data, 'base64') : Buffer.from(data);
      } else if (f.content.secretRef) {
        const secret = await landscape.seedCore.readNamespacedSecret({
          name: f.content.secretRef.name,
          namespace: landscape.namespace,
        });
        content = Buffer.from(secret.data?.[f.content.secretRef.dataKey] ?? '', 'base64');
      }
      if (content) files.push({ path: f.path, mode: f.permissions ?? 0o644, content });
    }
    const unit = (item.spec.units ?? []).find((u) => u.name === UNIT.downloader)?.content ?? '';
    out.set(pool, { files, unit });
  }
  return out;
}

/** A file's inline content from an OSC (the config and init script node-init needs). */
export function oscFileText(osc: OperatingSystemConfig, path: string): string {
  const file = [...(osc.spec.files ?? []), ...(osc.status?.extensionFiles ?? [])].find(
    (f) => f.path === path,
  );
  const inline = file?.content.inline;
  if (!inline) throw new Error(`the OSC has no inline file ${path}`);
  return inline.encoding === 'b64' ? Buffer.from(inline.data, 'base64').toString('utf8') : inline.data;
}

/**
 * Fills the fake image directory with every file the OSCs take from images: the agent's image
 * holds the bundled agent, every other image a stub. Returns the agent's image.
 */
export function populateImages(dir: string, pools: Iterable<PoolSecret>, bundle: string): string {
  let agentImage = '';
  const agent = `#!/usr/bin/env node\n${readFileSync(bundle, 'utf8')}`;
  for (const pool of pools) {
    for (const f of [...(pool.osc.spec.files ?? []), ...(pool.osc.status?.extensionFiles ?? [])]) {
      const ref = f.content.imageRef;
      if (!ref) continue;
      const target = join(dir, encodeURIComponent(ref.image), ref.filePathInImage);
      if (ref.filePathInImage === AGENT_IMAGE_FILE) agentImage = ref.image;
      if (existsSync(target)) continue;
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(
        target,
        ref.filePathInImage === AGENT_IMAGE_FILE
          ? agent
          : `#!/bin/sh\n# ${ref.filePathInImage} of ${ref.image}: a stub of the demo's fake image directory\nexit 0\n`,
        { mode: 0o755 },
      );
    }
  }
  if (!agentImage) throw new Error(`no OSC takes ${AGENT_IMAGE_FILE} from an image`);
  return agentImage;
}

/** Which legacy objects are left after the cleanup. */
export async function legacyObjects(landscape: Landscape): Promise<string[]> {
  const left: string[] = [];
  const exists = (p: Promise<unknown>) =>
    p.then(
      () => true,
      () => false,
    );
  if (
    await exists(
      landscape.shootCore.readNamespacedSecret({ name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM }),
    )
  )
    left.push(`shoot secret kube-system/${NAME.downloader}`);
  for (const s of await listShootSecrets(landscape, `${LABEL.gardenerRole}=${LABEL_VALUE.roleCloudConfig}`))
    left.push(`shoot secret kube-system/${s.metadata?.name}`);
  const access = `${NAME.shootAccessPrefix}${NAME.downloader}`;
  if (await exists(landscape.seedCore.readNamespacedSecret({ name: access, namespace: landscape.namespace })))
    left.push(`seed secret ${landscape.namespace}/${access}`);
  return left;
}

export function summarizeSpread(specs: readonly NodeSpec[]): string {
  const pools = new Map<string, NodeSpec[]>();
  for (const s of specs) pools.set(s.pool, [...(pools.get(s.pool) ?? []), s]);
  return [...pools]
    .map(([pool, list]) => {
      const zones = new Map<string, number>();
      for (const s of list) zones.set(s.zone, (zones.get(s.zone) ?? 0) + 1);
      return `${pool} ${list.length} (${[...zones].map(([z, n]) => `${z} ${n}`).join(', ')})`;
    })
    .join('; ');
}
