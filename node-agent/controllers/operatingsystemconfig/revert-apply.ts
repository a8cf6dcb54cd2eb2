/**
 * Going back after a failed apply (`run --revert-failed-applies`, like Talos' `apply --mode try`):
 * when the units an apply restarted or the health checks fail after the settle time, the agent
 * applies the OSC it ran before (last-applied-osc.yaml as it was before the apply) and judges that
 * too. It remembers the checksum it went back from (applier/reverted.ts), so it does not apply it
 * again until its secret holds another one, and reports `Failed` with reason `RolledBack`, naming
 * why and whether the node is healthy again; `checksum/cloud-config-data` names what runs again.
 */

import { APPLY_REASON, sha256Hex } from '../../../api/index.js';
import type { Logger } from '../../../runtime/logging.js';
import { applyOsc } from '../../applier/apply-osc.js';
import { HostRoot } from '../../applier/host-root.js';
import { writeReverted } from '../../applier/reverted.js';
import type { ContainerdTool } from '../../containerd/containerd-tool.js';
import type { ImageExtractor } from '../../registry/image-extractor.js';
import type { Systemd } from '../../systemd/systemd.js';
import { failureMessage } from './apply-report.js';
import { restartedUnits, type Verdict } from './verify-apply.js';

export interface RevertOptions {
  readonly root: string;
  /** The checksum that failed. */
  readonly failed: string;
  readonly verdict: Extract<Verdict, { ok: false }>;
  /** The exact osc.yaml bytes the node ran before. */
  readonly previousText: string;
  readonly systemd: Systemd;
  readonly images: ImageExtractor;
  readonly hostName?: string;
  readonly containerd?: ContainerdTool;
  readonly verify: (units: readonly string[]) => Promise<Verdict>;
  readonly signal: AbortSignal;
  readonly log: Logger;
}

export interface RevertOutcome {
  readonly reason: string;
  readonly message: string;
  /** The checksum the node runs now (the previous one; the failed one if going back failed). */
  readonly running: string;
  /** The previous OSC has another agent unit: the agent must restart itself to run it. */
  readonly restartSelf: boolean;
}

export async function revertApply(o: RevertOptions): Promise<RevertOutcome> {
  const previous = sha256Hex(o.previousText);
  const why = `${o.verdict.reason}: ${o.verdict.message}`;
  await writeReverted(new HostRoot(o.root), o.failed);
  o.log.info({ failed: o.failed, previous }, 'Going back to the operating system config the node ran before');
  try {
    // every step in this process, the agent's own restart last: a restarted agent would hold the
    // failed checksum and never finish going back
    const result = await applyOsc({
      root: o.root,
      oscText: o.previousText,
      systemd: o.systemd,
      images: o.images,
      logger: o.log,
      onNodeAgentRestart: 'continue',
      signal: o.signal,
      hostName: o.hostName,
      containerd: o.containerd,
    });
    const again = await o.verify(await restartedUnits(result.plan, o.root));
    return {
      reason: APPLY_REASON.rolledBack,
      message: `${why}; went back to ${previous.slice(0, 12)}${again.ok ? ', which is healthy' : `, which fails too: ${again.message}`}`,
      running: previous,
      restartSelf: result.nodeAgentRestartRequired,
    };
  } catch (e) {
    o.log.error({ err: e }, 'Going back to the previous operating system config failed');
    return {
      reason: o.verdict.reason,
      message: `${why}; going back to ${previous.slice(0, 12)} failed: ${failureMessage(e)}`,
      running: o.failed,
      restartSelf: false,
    };
  }
}
