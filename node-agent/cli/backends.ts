/**
 * What `--systemd`, `--disk` and `--containerd` may name. The agent a node runs knows only the
 * real thing: `systemctl`, the formatter `script` and the `host`'s containerd. The entry point for
 * tests and the demo (hack/node-agent-doubles/main.ts) adds recorders and a recorded containerd
 * through `CliIo.backends`, so no test double is part of the executable a node runs.
 */
import { UsageError } from '../../runtime/cli/exit-codes.js';
import type { Logger } from '../../runtime/logging.js';
import { type Disk, ScriptDisk } from '../bootstrap/disk.js';
import { type ContainerdTool, hostContainerdTool } from '../containerd/containerd-tool.js';
import { SystemctlSystemd } from '../systemd/systemctl-systemd.js';
import type { Systemd } from '../systemd/systemd.js';
import type { CliIo } from './cli-io.js';

export interface Backend<T> {
  /** The spec as usage errors name it, e.g. `"record:FILE"`. */
  readonly form: string;
  /** The spec in `--help`. */
  readonly help: string;
  /** The backend `spec` names, or undefined when `spec` is not of this form. */
  create(spec: string, root: string, io: CliIo, logger: Logger): T | undefined;
}

export interface NodeBackends {
  readonly systemd: readonly Backend<Systemd>[];
  readonly disk: readonly Backend<Disk>[];
  readonly containerd: readonly Backend<ContainerdTool>[];
}

export const SYSTEMCTL: Backend<Systemd> = {
  form: '"systemctl"',
  help: '"systemctl"',
  create: (spec, _root, io, logger) =>
    spec === 'systemctl' ? new SystemctlSystemd({ logger, env: io.env }) : undefined,
};

export const FORMATTER_SCRIPT: Backend<Disk> = {
  form: '"script"',
  help: '"script" (run the formatter)',
  create: (spec, root, io, logger) =>
    spec === 'script' ? new ScriptDisk({ root, env: io.env, logger }) : undefined,
};

export const HOST_CONTAINERD: Backend<ContainerdTool> = {
  form: '"host"',
  help: '"host" (`containerd config default` and `ctr version` of this machine)',
  create: (spec, _root, io) => (spec === 'host' ? hostContainerdTool(io.env) : undefined),
};

/** The backends of the agent a node runs. */
export const NODE_BACKENDS: NodeBackends = {
  systemd: [SYSTEMCTL],
  disk: [FORMATTER_SCRIPT],
  containerd: [HOST_CONTAINERD],
};

/** `a`, `a or b`, `a, b or c`. */
function alternatives(items: readonly string[], last: string): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')}${last}${items.at(-1)}`;
}

function chosen<T>(
  flag: string,
  backends: readonly Backend<T>[],
  spec: string,
  root: string,
  io: CliIo,
  logger: Logger,
): T {
  for (const backend of backends) {
    const made = backend.create(spec, root, io, logger);
    if (made) return made;
  }
  throw new UsageError(
    `${flag} must be ${alternatives(
      backends.map((b) => b.form),
      ' or ',
    )}, not ${JSON.stringify(spec)}`,
  );
}

/** The help text of `--systemd` (run, apply, bootstrap). */
export function systemdFlagHelp(io: CliIo): string {
  return alternatives(
    (io.backends ?? NODE_BACKENDS).systemd.map((b) => b.help),
    ', or ',
  );
}

export function diskFlagHelp(io: CliIo): string {
  return alternatives(
    (io.backends ?? NODE_BACKENDS).disk.map((b) => b.help),
    ', or ',
  );
}

/** The help text of `--containerd` (run, apply). */
export function containerdFlagHelp(io: CliIo): string {
  return (
    'the containerd a v1.150.0 OSC (criConfig.containerd) is configured with: ' +
    alternatives(
      (io.backends ?? NODE_BACKENDS).containerd.map((b) => b.help),
      ', or ',
    ) +
    ' (default: host when --root is /, else none)'
  );
}

/** `--systemd` defaults to systemctl only when the root is `/`. */
export function systemdFrom(spec: string | undefined, root: string, io: CliIo, logger: Logger): Systemd {
  const name = spec ?? (root === '/' ? 'systemctl' : undefined);
  if (name === undefined) throw new UsageError('--systemd is required when --root is not /');
  return chosen('--systemd', (io.backends ?? NODE_BACKENDS).systemd, name, root, io, logger);
}

/** `--disk` defaults to the formatter script only when the root is `/`. */
export function diskFrom(spec: string | undefined, root: string, io: CliIo, logger: Logger): Disk {
  const name = spec ?? (root === '/' ? 'script' : undefined);
  if (name === undefined) {
    throw new UsageError(
      '--disk is required when --root is not / and bootstrap.kubeletDataVolumeSize is set ' +
        "(the formatter script works on the machine's disks, whatever the root)",
    );
  }
  return chosen('--disk', (io.backends ?? NODE_BACKENDS).disk, name, root, io, logger);
}

/**
 * `--containerd` defaults to this machine's containerd only when the root is `/`; elsewhere to
 * none, so an OSC that configures containerd fails its apply instead of asking a containerd that
 * does not serve that root.
 */
export function containerdFrom(
  spec: string | undefined,
  root: string,
  io: CliIo,
  logger: Logger,
): ContainerdTool | undefined {
  const name = spec ?? (root === '/' ? 'host' : undefined);
  if (name === undefined) return undefined;
  return chosen('--containerd', (io.backends ?? NODE_BACKENDS).containerd, name, root, io, logger);
}
