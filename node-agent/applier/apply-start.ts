/**
 * Where an apply starts (apply-osc.ts steps 1 and 2): the next OSC decoded and checked as a whole,
 * both OSCs as they apply to this host (`files[].hostName`, containerd's environment drop-in), the
 * last applied OSC and an interrupted apply's progress read from the node, what v1.150's containerd
 * and registries need, the drift found on the node when asked, and the plan (the persisted one of
 * the same OSC, else a new one). Reads only: nothing here writes to the node.
 */
import { hostname } from 'node:os';
import {
  decodeOperatingSystemConfig,
  type OperatingSystemConfig,
  sha256Hex,
  ValidationError,
} from '../../api/index.js';
import type { Logger } from '../../runtime/logging.js';
import { computeContainerdConfig } from '../containerd/containerd-config-file.js';
import { withContainerdEnvDropIn } from '../containerd/containerd-env-drop-in.js';
import { containerdConfigChanged, withContainerdRestart } from '../containerd/containerd-restart.js';
import { checkRegistryUpstreams } from '../containerd/registry-files.js';
import { registryChanges } from '../containerd/registry-hosts.js';
import { InPlaceUpdateUnsupportedError, missingInPlaceCapabilities } from '../inplace/in-place-refusal.js';
import { computePlan } from '../planner/compute-plan.js';
import type { DisruptionPolicy } from '../planner/disruption-policy.js';
import { withDriftRepairs } from '../planner/drift-repair.js';
import { computeLeastDisruptionPlan } from '../planner/least-disruption-plan.js';
import type { Plan } from '../planner/plan.js';
import type { ApplyOptions } from './apply-osc.js';
import { refreshFromNode } from './drift-refresh.js';
import { oscForHost } from './files-for-host.js';
import { HostRoot } from './host-root.js';
import { decodeLastApplied, lastAppliedTextFor, readLastAppliedText } from './last-applied.js';
import { type Progress, readProgress } from './progress-file.js';
import { oscContentProblems } from './validate-osc.js';

function decodeNext(text: string, decodedByCaller: OperatingSystemConfig | undefined): OperatingSystemConfig {
  let osc = decodedByCaller;
  if (!osc) {
    const decoded = decodeOperatingSystemConfig(text);
    if (!decoded.ok) throw new ValidationError('OperatingSystemConfig', decoded.errors);
    osc = decoded.value;
  }
  const problems = oscContentProblems(osc);
  if (problems.length > 0) throw new ValidationError('OperatingSystemConfig', problems);
  return osc;
}

async function previousOsc(host: HostRoot, logger: Logger) {
  const text = await readLastAppliedText(host);
  if (text === undefined) return { text, osc: undefined };
  const decoded = decodeLastApplied(text);
  if ('osc' in decoded) return { text, osc: decoded.osc };
  // Upstream retries forever here; treating the node as unknown (apply everything) heals it.
  logger.error({ problem: decoded.problem }, 'Last applied OSC is unreadable, applying everything');
  return { text, osc: undefined };
}

async function interruptedProgress(host: HostRoot, logger: Logger): Promise<Progress | undefined> {
  try {
    return await readProgress(host);
  } catch (e) {
    logger.error({ err: e }, 'Ignoring unreadable apply progress file');
    return undefined;
  }
}

function planFor(
  previous: OperatingSystemConfig | undefined,
  next: OperatingSystemConfig,
  interrupted: Plan | undefined,
  policy: DisruptionPolicy | undefined,
): Plan {
  const options = interrupted ? { interrupted } : {};
  return policy
    ? computeLeastDisruptionPlan(previous, next, { ...options, policy })
    : computePlan(previous, next, options);
}

export type StartingPoint = Awaited<ReturnType<typeof startingPoint>>;

export async function startingPoint(options: ApplyOptions, logger: Logger) {
  const next = decodeNext(options.oscText, options.osc);
  const hostName = options.hostName ?? hostname().toLowerCase();
  const agentPath = options.agentPath ?? process.env.PATH ?? '';
  const nextHere = withContainerdEnvDropIn(oscForHost(next, hostName), agentPath);
  const host = new HostRoot(options.root);
  const checksum = sha256Hex(options.oscText);
  const lastText = lastAppliedTextFor(options.oscText, next, agentPath);
  // decoding the re-encoded text is not taken for granted to give `next` back
  const lastOsc = lastText === options.oscText ? next : undefined;

  const previous = await previousOsc(host, logger);
  const progress = await interruptedProgress(host, logger);
  const resumed = progress?.oscChecksum === checksum;
  const previousHere = previous.osc && withContainerdEnvDropIn(oscForHost(previous.osc, hostName), agentPath);
  const missing = missingInPlaceCapabilities(previousHere, nextHere);
  if (missing.length > 0) throw new InPlaceUpdateUnsupportedError(missing);
  const containerdConfig = await computeContainerdConfig(host, nextHere, options.containerd, options.signal);
  const registries = registryChanges(previousHere, nextHere);
  checkRegistryUpstreams(registries);
  const refresh =
    options.drift && previousHere && !resumed
      ? await refreshFromNode({
          host,
          previous: previousHere,
          systemd: options.systemd,
          rules: options.disruptionPolicy?.drift,
          recordAdoptions: true,
          repair: options.drift === 'repair',
        })
      : undefined;
  const plan = resumed
    ? progress.plan
    : withContainerdRestart(
        withDriftRepairs(
          planFor(refresh?.observed ?? previousHere, nextHere, progress?.plan, options.disruptionPolicy),
          refresh?.repairs ?? [],
          nextHere,
        ),
        containerdConfigChanged(previousHere, nextHere),
      );
  return {
    host,
    checksum,
    nextHere,
    lastText,
    lastOsc,
    previous,
    progress,
    resumed,
    containerdConfig,
    registries,
    refresh,
    plan,
  };
}
