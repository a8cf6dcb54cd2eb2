/**
 * Check 3: upstream's node-agent OSC reconciler (through the oracle: fake client, its fake D-Bus, a
 * real directory with umask 022, its fake image extractor) and our `gardener-node-agent apply`
 * (through its command line, systemd recorded; `--disruption-policy none` unless a test asks for
 * the default) run the same sequence of osc.yaml files, each on
 * its own root. After every step the file trees (path, type, mode, content) and the systemd calls
 * are compared.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { decodeOperatingSystemConfig, parseYaml } from '../../../api/index.js';
import { main } from '../../../hack/node-agent-doubles/main.js';
import { parseRecording } from '../../../hack/node-agent-doubles/recording-systemd.js';
import { imageDirectoryName } from '../../../node-agent/registry/directory-extractor.js';
import { snapshotTree, type TreeEntry } from '../../node-agent/support/harness.js';
import type { Differences } from './difference.js';
import type { Oracle } from './oracle.js';

export interface AgentStep {
  readonly name: string;
  /** The osc.yaml bytes both agents get. */
  readonly osc: string;
}

export interface AgentSequence {
  readonly name: string;
  readonly steps: readonly AgentStep[];
}

/** Upstream's fake extractor reads `<images>/<filePathInImage>` inside its root, whatever the image. */
export const UPSTREAM_IMAGES = '/.oracle-images';
const NODE_NAME = 'node-1';
/** What exists on a bootstrapped node before the first apply. */
export const NODE_DIRECTORIES = ['etc/systemd/system', 'var/lib/gardener-node-agent/tmp'];

export interface UpstreamStep {
  readonly actions: { action: string; units: string[] | null }[];
  readonly restartsNodeAgent: boolean;
  readonly error?: string;
}

/** The content an image file gets: the same for every image, as upstream's fake cannot tell them apart. */
const imageFileContent = (path: string) => `#!/bin/sh\n# image file ${path}\n`;

export function writeImages(steps: readonly AgentStep[], ours: string, upstreamRoot: string): void {
  for (const step of steps) {
    const decoded = decodeOperatingSystemConfig(step.osc);
    if (!decoded.ok) continue;
    const osc = decoded.value;
    for (const file of [...(osc.spec.files ?? []), ...(osc.status?.extensionFiles ?? [])]) {
      const ref = file.content.imageRef;
      if (!ref) continue;
      for (const target of [
        join(ours, imageDirectoryName(ref.image), ref.filePathInImage),
        join(upstreamRoot, UPSTREAM_IMAGES, ref.filePathInImage),
      ]) {
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, imageFileContent(ref.filePathInImage), { mode: 0o755 });
      }
    }
  }
}

/** The files of an osc.yaml under /etc/systemd, by path (content and mode): what systemd reads. */
export function systemdFiles(osc: string): Map<string, string> {
  const decoded = decodeOperatingSystemConfig(osc);
  const files = decoded.ok
    ? [...(decoded.value.spec.files ?? []), ...(decoded.value.status?.extensionFiles ?? [])]
    : [];
  return new Map(
    files.filter((f) => f.path.startsWith('/etc/systemd/')).map((f) => [f.path, JSON.stringify(f)]),
  );
}

export function sameEntries(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/**
 * `--disruption-policy` of our `apply`: `none` is the exact-upstream mode the strict comparison
 * needs; `defaults` (the agent's default) differs only as docs/compatibility.md N33 declares.
 */
export type OurDisruptionPolicy = 'none' | 'defaults';

async function applyOurs(
  osc: string,
  root: string,
  images: string,
  record: string,
  disruptionPolicy: OurDisruptionPolicy,
) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const code = await main(
    [
      'apply',
      '--osc',
      osc,
      '--root',
      root,
      '--systemd',
      `record:${record}`,
      '--images',
      images,
      '--log-level',
      'error',
      '--disruption-policy',
      disruptionPolicy,
    ],
    { stdout, stderr, env: { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' } },
  );
  let recorded: string[] = [];
  try {
    recorded = parseRecording(readFileSync(record, 'utf8')).map((o) =>
      'unit' in o ? `${o.op} ${o.unit}` : o.op,
    );
  } catch {
    // No systemd call at all.
  }
  const result = code === 0 ? (parseYaml(out) as { nodeAgentRestartRequired?: boolean }) : {};
  return { code, stderr: err, recorded, restarts: result.nodeAgentRestartRequired ?? false };
}

export const upstreamCalls = (s: UpstreamStep) =>
  s.actions.flatMap((a) => (a.units?.length ? a.units.map((u) => `${a.action} ${u}`) : [a.action]));
export const enablement = (calls: readonly string[]) => calls.filter((c) => /^(enable|disable) /.test(c));

export function compareTrees(
  d: Differences,
  subject: string,
  ours: Record<string, TreeEntry>,
  upstream: Record<string, TreeEntry>,
): void {
  for (const rel of [...new Set([...Object.keys(ours), ...Object.keys(upstream)])].sort()) {
    const a = ours[rel];
    const b = upstream[rel];
    const kind = (a ?? b)!.type === 'dir' ? 'dir' : 'file';
    const item = `${kind} /${rel}`;
    if (!a || !b) {
      d.add(subject, item, 'exists', Boolean(a), Boolean(b));
      continue;
    }
    d.compare(subject, item, 'type', a.type, b.type);
    if (a.type === 'symlink' || b.type === 'symlink') continue;
    d.compare(subject, item, 'mode', a.mode, b.mode);
    if (a.type === 'file' && b.type === 'file') d.compare(subject, item, 'content', a.content, b.content);
  }
}

export async function runSequence(
  oracle: Oracle,
  d: Differences,
  sequence: AgentSequence,
  disruptionPolicy: OurDisruptionPolicy = 'none',
): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'compat-agent-'));
  try {
    const ours = join(base, 'ours');
    const upstream = join(base, 'upstream');
    const images = join(base, 'images');
    for (const dir of [ours, upstream, images]) mkdirSync(dir, { mode: 0o755 });
    // Both roots start as a node bootstrap leaves it.
    for (const root of [ours, upstream]) {
      for (const dir of NODE_DIRECTORIES) mkdirSync(join(root, dir), { recursive: true, mode: 0o755 });
    }
    writeImages(sequence.steps, images, upstream);
    let previousSystemdFiles = new Map<string, string>();
    for (const [i, step] of sequence.steps.entries()) {
      const current = systemdFiles(step.osc);
      // A missing daemon-reload is declared only where no file systemd reads changed.
      const callsField = sameEntries(current, previousSystemdFiles)
        ? 'systemd calls'
        : 'systemd calls (files under /etc/systemd changed)';
      previousSystemdFiles = current;
      const subject = `step ${i + 1} (${step.name})`;
      const oscFile = join(base, `step-${i + 1}.yaml`);
      writeFileSync(oscFile, step.osc);
      const mine = await applyOurs(
        oscFile,
        ours,
        images,
        join(base, `systemd-${i + 1}.jsonl`),
        disruptionPolicy,
      );
      const [theirs] = await oracle.ask<UpstreamStep[]>('nodeAgent', {
        root: upstream,
        images: UPSTREAM_IMAGES,
        nodeName: NODE_NAME,
        kubernetesVersion: '1.29.8',
        secretName: 'gardener-node-agent-osc',
        steps: [{ osc: Buffer.from(step.osc).toString('base64') }],
      });
      d.compare(
        subject,
        '',
        'result',
        mine.code === 0 ? 'applied' : `exit ${mine.code}: ${mine.stderr.trim()}`,
        theirs!.error ? `error: ${theirs!.error}` : 'applied',
      );
      d.compare(subject, '', 'node agent restarts itself', mine.restarts, theirs!.restartsNodeAgent);
      const theirCalls = upstreamCalls(theirs!);
      const sameSet = [...mine.recorded].sort().join('\n') === [...theirCalls].sort().join('\n');
      d.compare(subject, '', callsField, [...mine.recorded].sort(), [...theirCalls].sort());
      // Upstream runs unit commands in parallel (no order); enable and disable it runs in unit order.
      if (sameSet)
        d.compare(subject, '', 'enable/disable order', enablement(mine.recorded), enablement(theirCalls));
      const ourTree = snapshotTree(ours);
      compareTrees(
        d,
        subject,
        ourTree,
        snapshotTree(upstream, (rel) => rel === UPSTREAM_IMAGES.slice(1)),
      );
      // Never a setuid, setgid or sticky file or directory from an OSC, whatever upstream does.
      for (const [rel, entry] of Object.entries(ourTree)) {
        if (entry.type !== 'symlink' && Number.parseInt(entry.mode, 8) > 0o777)
          d.add(subject, `${entry.type} /${rel}`, 'special mode bits', entry.mode, 'none');
      }
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
