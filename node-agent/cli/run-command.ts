/**
 * `gardener-node-agent run` (also the default command, as the unit's ExecStart passes only
 * --config): runs the agent until SIGTERM/SIGINT (a second signal exits 1 at once) or until it must
 * restart itself; both end with exit 0 and systemd starts it again.
 */
import { type Command, Option } from 'commander';
import {
  loadNodeAgentConfigurationOfContract,
  type NodeAgentConfiguration,
  PATH,
  parseGoDuration,
  ValidationError,
} from '../../api/index.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { stdinConflict } from '../../runtime/cli/input-file.js';
import { createLogger, type LogFormat, type LogLevel } from '../../runtime/logging.js';
import { usesNodeIdentity } from '../agent/rest-config.js';
import { runAgent } from '../agent/run-agent.js';
import type { ContainerdCheck } from '../controllers/healthcheck/containerd-health.js';
import { ctrVersionCheck } from '../controllers/healthcheck/ctr-version-check.js';
import { imagesFrom } from './apply-command.js';
import { containerdFlagHelp, containerdFrom, systemdFlagHelp, systemdFrom } from './backends.js';
import { withCaFileRead } from './ca-file.js';
import type { CliIo } from './cli-io.js';
import { configFileToRead } from './config-file.js';
import { agentDisruptionPolicy, disruptionPolicyOption } from './disruption-policy-flag.js';
import { checkedRoot } from './host-root-guard.js';
import { readDocument, readText } from './read-osc.js';

interface RunFlags {
  readonly config?: string;
  readonly configDir?: string;
  readonly root: string;
  readonly systemd?: string;
  readonly containerd?: string;
  readonly images?: string;
  readonly nodeName?: string;
  readonly healthPort?: string;
  readonly metricsPort?: string;
  readonly kubeletHealthzUrl?: string;
  readonly containerdCheck?: 'ctr' | 'off';
  /** false with --no-health-check */
  readonly healthCheck: boolean;
  readonly apiServer?: string;
  readonly caFile?: string;
  /** `--log-level`: overrides the config's logLevel. */
  readonly logLevel?: LogLevel;
  readonly applySettleTime?: string;
  readonly revertFailedApplies?: boolean;
  readonly disruptionPolicy?: string;
  readonly driftCheckInterval?: string;
}

/**
 * `--drift-check-interval`: the drift monitor's periodic check (docs/node-agent.md#drift); `0s`:
 * off (false); absent: the agent's default, every minute on a node (root `/`), else off.
 */
export function driftIntervalMs(value: string | undefined): number | false | undefined {
  if (value === undefined) return undefined;
  let nanos: number;
  try {
    nanos = parseGoDuration(value);
  } catch (e) {
    throw new UsageError(`--drift-check-interval: ${(e as Error).message}`);
  }
  if (nanos !== 0 && nanos < 1e9)
    throw new UsageError(
      `--drift-check-interval must be 0s (off) or at least 1s, not ${JSON.stringify(value)}`,
    );
  return nanos === 0 ? false : nanos / 1e6;
}

function port(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`${flag} must be a port number, not ${JSON.stringify(value)}`);
  return n;
}

/** The longest settle time: the verdict must come within the reconcile's 3 minutes. */
export const MAX_APPLY_SETTLE_MS = 120_000;

function settleMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  let nanos: number;
  try {
    nanos = parseGoDuration(value);
  } catch (e) {
    throw new UsageError(`--apply-settle-time: ${(e as Error).message}`);
  }
  if (nanos < 0 || nanos > MAX_APPLY_SETTLE_MS * 1e6)
    throw new UsageError(`--apply-settle-time must be between 0s and 2m, not ${JSON.stringify(value)}`);
  return nanos / 1e6;
}

/** undefined: the agent's default (the kubelet's /healthz when the root is /, else none). */
function kubeletHealthzUrl(flags: RunFlags): string | false | undefined {
  const value = flags.kubeletHealthzUrl;
  if (!flags.healthCheck || value === 'off') return false;
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // Reported below.
  }
  if (url?.protocol !== 'http:')
    throw new UsageError(
      `--kubelet-healthz-url must be an http:// URL or "off", not ${JSON.stringify(value)}`,
    );
  return value;
}

/** undefined: the agent's default (`ctr version` when the root is /, else none). */
function containerdCheck(flags: RunFlags, env: NodeJS.ProcessEnv): ContainerdCheck | false | undefined {
  if (!flags.healthCheck || flags.containerdCheck === 'off') return false;
  return flags.containerdCheck === 'ctr' ? ctrVersionCheck({ env }) : undefined;
}

/**
 * `--api-server URL` and `--ca-file FILE` replace `apiServer.server` and `apiServer.caBundle` of
 * the config for this process: the file on disk stays what the OSC wrote (it names the API server
 * as the nodes of a real landscape reach it), while the agent talks to the URL given. Needed where
 * the two differ, e.g. many agents on one machine against a local API server (the demo). They apply
 * to the token credentials (gardener v1.91.4 cmd/gardener-node-agent/app/app.go) and to the
 * per-node identity the agent obtains; with any other kubeconfig they are a usage error.
 */
export function withApiServerOverrides(
  config: NodeAgentConfiguration,
  flags: Pick<RunFlags, 'apiServer' | 'caFile'>,
  env: NodeJS.ProcessEnv,
  readStdin?: () => string,
): NodeAgentConfiguration {
  if (flags.apiServer === undefined && flags.caFile === undefined) return config;
  const kubeconfig = env.KUBECONFIG || config.clientConnection.kubeconfig;
  // the per-node identity's kubeconfig is written from apiServer when the agent obtains it
  if (kubeconfig && !usesNodeIdentity(config, env))
    throw new UsageError(
      `--api-server and --ca-file apply to the agent's token credentials, but a kubeconfig is configured (${kubeconfig}, from ${env.KUBECONFIG ? '$KUBECONFIG' : 'clientConnection.kubeconfig'}): use one or the other`,
    );
  const apiServer = { ...config.apiServer };
  if (flags.apiServer !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(flags.apiServer);
    } catch {
      // Reported below.
    }
    if (url?.protocol !== 'https:' || url.pathname !== '/' || url.search !== '')
      throw new UsageError(
        `--api-server must be an https:// URL without a path, not ${JSON.stringify(flags.apiServer)}`,
      );
    apiServer.server = flags.apiServer.replace(/\/$/, '');
  }
  if (flags.caFile !== undefined) {
    const pem = readText('--ca-file', flags.caFile, readStdin);
    if (!pem.includes('-----BEGIN CERTIFICATE-----'))
      throw new UsageError(`--ca-file ${flags.caFile} holds no PEM certificate`);
    apiServer.caBundle = Buffer.from(pem).toString('base64');
  }
  return { ...config, apiServer };
}

export async function runCommand(flags: RunFlags, io: CliIo): Promise<void> {
  const root = checkedRoot(flags.root, io.env);
  const applySettleMs = settleMs(flags.applySettleTime);
  const driftCheckIntervalMs = driftIntervalMs(flags.driftCheckInterval);
  const disruptionPolicy = agentDisruptionPolicy(flags.disruptionPolicy, root);
  const healthProbes = {
    kubeletHealthzUrl: kubeletHealthzUrl(flags),
    containerdCheck: containerdCheck(flags, io.env),
  };
  const configFile = configFileToRead(flags);
  const conflict = stdinConflict({ '--config': configFile, '--ca-file': flags.caFile });
  if (conflict) throw new UsageError(conflict);
  const loaded = loadNodeAgentConfigurationOfContract(readDocument('--config', configFile, io.readStdin));
  if (!loaded.ok) throw new ValidationError(`NodeAgentConfiguration ${configFile}`, loaded.errors);
  const { contract } = loaded.value;
  const overridden = withApiServerOverrides(loaded.value.config, flags, io.env, io.readStdin);
  const config = withCaFileRead(overridden, root);
  const log = createLogger({
    name: 'gardener-node-agent',
    level: flags.logLevel ?? (config.logLevel as LogLevel),
    format: config.logFormat as LogFormat,
  });
  log.info(
    { root, config: configFile, contract, apiServer: config.apiServer.server },
    'Starting gardener-node-agent',
  );
  const agent = await runAgent({
    config,
    root,
    systemd: systemdFrom(flags.systemd, root, io, log),
    containerd: containerdFrom(flags.containerd, root, io, log),
    images: imagesFrom(flags.images, root, io, log),
    log,
    env: io.env,
    nodeName: flags.nodeName,
    healthPort: port('--health-port', flags.healthPort),
    metricsPort: port('--metrics-port', flags.metricsPort),
    applySettleMs,
    revertFailedApplies: flags.revertFailedApplies ?? false,
    disruptionPolicy,
    driftCheckIntervalMs,
    contract,
    ...(configFile === '-' ? {} : { configFile }),
    ...healthProbes,
  });
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) process.exit(1);
    log.info({ signal }, 'Shutting down');
    agent.stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const reason = await agent.stopped;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  log.info({ reason }, reason === 'restart' ? 'Exiting so that systemd restarts the node agent' : 'Stopped');
}

export function addRunCommand(program: Command, io: CliIo): void {
  program
    .command('run', { isDefault: true })
    .description('run the node agent (the default command)')
    // as the default command, run receives any unknown command word: name it instead of "too many arguments"
    .argument('[command]')
    .option(
      '--config <file>',
      `the NodeAgentConfiguration ("-": standard input; default ${PATH.nodeAgentConfig})`,
    )
    .option('--config-dir <dir>', 'read the newest config-<version>.yaml in DIR, as v1.150 starts the agent')
    .option('--root <dir>', 'the host root every path resolves under', '/')
    .option('--systemd <spec>', systemdFlagHelp(io))
    .option('--containerd <spec>', containerdFlagHelp(io))
    .option('--images <dir>', 'take image files from DIR/<url-encoded image>/<path> instead of containerd')
    .option('--node-name <name>', 'the Node to act for, instead of looking it up by hostname')
    .option('--health-port <port>', 'overrides server.healthProbes.port')
    .option('--metrics-port <port>', 'overrides server.metrics.port')
    .option(
      '--kubelet-healthz-url <url>',
      'the kubelet endpoint the health check probes, or "off" (default: http://127.0.0.1:10248/healthz when --root is /, else off)',
    )
    .addOption(
      new Option(
        '--containerd-check <how>',
        'how the health check asks containerd (default: ctr when --root is /, else off)',
      ).choices(['ctr', 'off']),
    )
    .option('--no-health-check', 'do not check (and restart) kubelet and containerd')
    .option(
      '--api-server <url>',
      "talk to this https:// URL instead of the config's apiServer.server (the config file is not changed)",
    )
    .option('--ca-file <file>', "trust this PEM bundle instead of the config's apiServer.caBundle")
    .option(
      '--apply-settle-time <duration>',
      'how long after an apply the restarted units and health checks are judged and the result reported on the Node (default 10s, at most 2m)',
    )
    .option(
      '--revert-failed-applies',
      'when an apply fails that judgement, go back to the configuration the node ran before and hold the failed one until another arrives',
    )
    .addOption(disruptionPolicyOption())
    .option(
      '--drift-check-interval <duration>',
      'watch the applied files and units for drift (inotify) and check them fully this often; report on the Node, repair by the drift policy ("0s": off; default 1m when --root is /, else off)',
    )
    .action((command: string | undefined, flags: RunFlags) => {
      if (command !== undefined) throw new UsageError(`unknown command '${command}' (see --help)`);
      return runCommand(flags, io);
    });
}
