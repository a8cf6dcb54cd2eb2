/**
 * The v1.150.0 node agents side by side: upstream v1.150.0's OSC reconciler (the gardener-oracle-150
 * `nodeAgent` op: fake client, fake D-Bus, fake containerd client, `containerd config default`
 * answered by the test, a real directory with umask 022) and our `applyOsc` (systemd in memory, the
 * same containerd double, no disruption policy) run the same osc.yaml sequence, each on its own
 * root. After every step the file trees (path, type, mode, content: TOML bytes included), the
 * systemd calls and the self-restart decision are compared, as check 3 does for v1.91.4
 * (node-agent-case.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySystemd } from '../../../hack/node-agent-doubles/memory-systemd.js';
import { applyOsc } from '../../../node-agent/applier/apply-osc.js';
import type { ContainerdTool } from '../../../node-agent/containerd/containerd-tool.js';
import { DirectoryImageExtractor } from '../../../node-agent/registry/directory-extractor.js';
import { snapshotTree } from '../../node-agent/support/harness.js';
import type { Differences } from './difference.js';
import type { AgentSequence } from './node-agent-case.js';
import {
  compareTrees,
  enablement,
  NODE_DIRECTORIES,
  sameEntries,
  systemdFiles,
  UPSTREAM_IMAGES,
  type UpstreamStep,
  upstreamCalls,
  writeImages,
} from './node-agent-case.js';
import type { Oracle150 } from './oracle-150.js';

/** The node: its Node's name and its hostname are the same, as on most providers. */
export const NODE_NAME = 'node-1';
/** The PATH both agents run with; containerd's environment drop-in carries it. */
const AGENT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The containerd both agents find on the node. */
export interface NodeContainerd {
  readonly name: string;
  readonly defaultConfig: string;
  readonly version: string;
}

const containerdTool = (c: NodeContainerd): ContainerdTool => ({
  defaultConfig: () => Promise.resolve(c.defaultConfig),
  version: () => Promise.resolve(c.version),
});

const opText = (op: { op: string; unit?: string }) => (op.unit === undefined ? op.op : `${op.op} ${op.unit}`);

export async function runSequenceV150(
  oracle: Oracle150,
  d: Differences,
  sequence: AgentSequence,
  containerd: NodeContainerd,
): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'compat-agent-150-'));
  try {
    const ours = join(base, 'ours');
    const upstream = join(base, 'upstream');
    const images = join(base, 'images');
    for (const dir of [ours, upstream, images]) mkdirSync(dir, { mode: 0o755 });
    for (const root of [ours, upstream]) {
      for (const dir of NODE_DIRECTORIES) mkdirSync(join(root, dir), { recursive: true, mode: 0o755 });
    }
    writeImages(sequence.steps, images, upstream);
    let previousSystemdFiles = new Map<string, string>();
    for (const [i, step] of sequence.steps.entries()) {
      const current = systemdFiles(step.osc);
      const callsField = sameEntries(current, previousSystemdFiles)
        ? 'systemd calls'
        : 'systemd calls (files under /etc/systemd changed)';
      previousSystemdFiles = current;
      const subject = `${containerd.name}: step ${i + 1} (${step.name})`;

      const systemd = new MemorySystemd();
      let mine: { error?: string; restarts: boolean };
      try {
        const result = await applyOsc({
          root: ours,
          oscText: step.osc,
          systemd,
          images: new DirectoryImageExtractor(images),
          onNodeAgentRestart: 'continue',
          hostName: NODE_NAME,
          containerd: containerdTool(containerd),
          agentPath: AGENT_PATH,
          // no policy: `--disruption-policy none`, the exact-upstream mode this strict comparison
          // needs (the CLI's default, least disruption, differs as docs/compatibility.md N33 says)
          disruptionPolicy: undefined,
        });
        mine = { restarts: result.nodeAgentRestartRequired };
      } catch (e) {
        mine = { error: (e as Error).message, restarts: false };
      }
      const recorded = systemd.ops.map(opText);
      const [theirs] = await oracle.ask<UpstreamStep[]>('nodeAgent', {
        root: upstream,
        images: UPSTREAM_IMAGES,
        nodeName: NODE_NAME,
        hostName: NODE_NAME,
        kubernetesVersion: '1.34.1',
        secretName: 'gardener-node-agent-worker-a',
        containerdDefaultConfig: containerd.defaultConfig,
        containerdVersion: containerd.version,
        path: AGENT_PATH,
        steps: [{ osc: Buffer.from(step.osc).toString('base64') }],
      });
      d.compare(
        subject,
        '',
        'result',
        mine.error === undefined ? 'applied' : `error: ${mine.error}`,
        theirs!.error ? `error: ${theirs!.error}` : 'applied',
      );
      d.compare(subject, '', 'node agent restarts itself', mine.restarts, theirs!.restartsNodeAgent);
      const theirCalls = upstreamCalls(theirs!);
      const sameSet = [...recorded].sort().join('\n') === [...theirCalls].sort().join('\n');
      d.compare(subject, '', callsField, [...recorded].sort(), [...theirCalls].sort());
      if (sameSet)
        d.compare(subject, '', 'enable/disable order', enablement(recorded), enablement(theirCalls));
      compareTrees(
        d,
        subject,
        snapshotTree(ours),
        snapshotTree(upstream, (rel) => rel === UPSTREAM_IMAGES.slice(1)),
      );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

export interface SwitchRun {
  /** Upstream's calls for the second OSC on a node only it ran: what ours must do alone. */
  readonly upstreamAlone: string[];
  /** Ours after upstream applied the first OSC: the same OSC again, then the second. */
  readonly oursSameAgain: { outcome: string; calls: string[] };
  readonly oursNext: { outcome: string; calls: string[] };
  /** upstream's last-computed-osc-changes.yaml after ours applied */
  readonly upstreamChangesLeft: boolean;
  /** Upstream again on the node ours left, with the second OSC. */
  readonly upstreamBack: { calls: string[]; restarts: boolean; error?: string };
}

/**
 * One node, two agents: upstream applies `first`, ours takes over (the same OSC again, then
 * `second`), and upstream takes over back with `second`.
 */
export async function runSwitch(
  oracle: Oracle150,
  first: string,
  second: string,
  containerd: NodeContainerd,
): Promise<SwitchRun> {
  const base = mkdtempSync(join(tmpdir(), 'compat-switch-150-'));
  try {
    const node = join(base, 'node');
    const alone = join(base, 'alone');
    const images = join(base, 'images');
    for (const dir of [node, alone, images]) mkdirSync(dir, { mode: 0o755 });
    for (const root of [node, alone])
      for (const dir of NODE_DIRECTORIES) mkdirSync(join(root, dir), { recursive: true, mode: 0o755 });
    const steps = [
      { name: 'first', osc: first },
      { name: 'second', osc: second },
    ];
    writeImages(steps, images, node);
    writeImages(steps, images, alone);
    const upstream = async (root: string, osc: string) => {
      const [result] = await oracle.ask<UpstreamStep[]>('nodeAgent', {
        root,
        images: UPSTREAM_IMAGES,
        nodeName: NODE_NAME,
        hostName: NODE_NAME,
        kubernetesVersion: '1.34.1',
        secretName: 'gardener-node-agent-worker-a',
        containerdDefaultConfig: containerd.defaultConfig,
        containerdVersion: containerd.version,
        path: AGENT_PATH,
        steps: [{ osc: Buffer.from(osc).toString('base64') }],
      });
      return result!;
    };
    const ours = async (osc: string) => {
      const systemd = new MemorySystemd();
      const result = await applyOsc({
        root: node,
        oscText: osc,
        systemd,
        images: new DirectoryImageExtractor(images),
        onNodeAgentRestart: 'continue',
        hostName: NODE_NAME,
        containerd: containerdTool(containerd),
        agentPath: AGENT_PATH,
      });
      return { outcome: result.outcome, calls: systemd.ops.map(opText) };
    };
    await upstream(alone, first);
    const upstreamAlone = upstreamCalls(await upstream(alone, second));
    await upstream(node, first);
    const oursSameAgain = await ours(first);
    const oursNext = await ours(second);
    const upstreamChangesLeft = existsSync(
      join(node, 'var/lib/gardener-node-agent/last-computed-osc-changes.yaml'),
    );
    const back = await upstream(node, second);
    return {
      upstreamAlone,
      oursSameAgain,
      oursNext,
      upstreamChangesLeft,
      upstreamBack: {
        calls: upstreamCalls(back),
        restarts: back.restartsNodeAgent,
        ...(back.error ? { error: back.error } : {}),
      },
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
