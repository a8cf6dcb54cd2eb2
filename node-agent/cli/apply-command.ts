/**
 * `apply --osc FILE --root DIR [--systemd record:FILE|systemctl] [--images DIR]`: applies an osc.yaml
 * to a root directory, resumably. `--systemd` defaults to systemctl only when the root is `/`:
 * restarting the machine's units for a tree in a temp dir is never what was meant.
 */
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { stringifyYaml } from '../../api/index.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { logLevelOption } from '../../runtime/cli/help.js';
import { isSystemError } from '../../runtime/cli/system-error.js';
import { createLogger, type LogFormat, type Logger, type LogLevel } from '../../runtime/logging.js';
import { applyOsc } from '../applier/apply-osc.js';
import { CtrImageExtractor } from '../registry/ctr-extractor.js';
import { DirectoryImageExtractor } from '../registry/directory-extractor.js';
import type { ImageExtractor } from '../registry/image-extractor.js';
import { RecordingSystemd } from '../systemd/recording-systemd.js';
import { SystemctlSystemd } from '../systemd/systemctl-systemd.js';
import type { Systemd } from '../systemd/systemd.js';
import { readSystemdFaults, SYSTEMD_FAULTS_ENV } from '../systemd/systemd-faults.js';
import type { CliIo } from './cli-io.js';
import { checkedRoot } from './host-root-guard.js';
import { readDocument } from './read-osc.js';

export const KILL_AFTER_SYSTEMD_OPS_ENV = 'NODE_AGENT_TEST_KILL_AFTER_SYSTEMD_OPS';
export const KILL_BEFORE_SYSTEMD_OPS_ENV = 'NODE_AGENT_TEST_KILL_BEFORE_SYSTEMD_OPS';

interface ApplyFlags {
  readonly osc: string;
  readonly root: string;
  readonly systemd?: string;
  readonly images?: string;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
}

function opCount(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const k = Number(value);
  if (!Number.isInteger(k) || k < 1) throw new UsageError(`${name} must be a positive integer`);
  return k;
}

/** The help text of `--systemd` (run, apply, bootstrap). */
export const SYSTEMD_FLAG_HELP =
  '"systemctl", "record:FILE" to append each call as a JSON line to FILE, or "record-timed:FILE" (the same, each line with "at", the time of the call)';

export function systemdFrom(spec: string | undefined, root: string, io: CliIo, logger: Logger): Systemd {
  const chosen = spec ?? (root === '/' ? 'systemctl' : undefined);
  if (chosen === undefined) throw new UsageError('--systemd is required when --root is not /');
  if (chosen === 'systemctl') return new SystemctlSystemd({ logger, env: io.env });
  for (const [prefix, timestamps] of [
    ['record:', false],
    ['record-timed:', true],
  ] as const) {
    if (chosen.startsWith(prefix) && chosen.length > prefix.length) {
      const faultsFile = io.env[SYSTEMD_FAULTS_ENV];
      return new RecordingSystemd(resolve(chosen.slice(prefix.length)), {
        killAfterOps: opCount(io.env, KILL_AFTER_SYSTEMD_OPS_ENV),
        killBeforeOps: opCount(io.env, KILL_BEFORE_SYSTEMD_OPS_ENV),
        timestamps,
        root,
        ...(faultsFile ? { faults: () => readSystemdFaults(resolve(faultsFile)) } : {}),
      });
    }
  }
  throw new UsageError(
    `--systemd must be "systemctl", "record:FILE" or "record-timed:FILE", not ${JSON.stringify(chosen)}`,
  );
}

export function imagesFrom(dir: string | undefined, root: string, io: CliIo, logger: Logger): ImageExtractor {
  return dir === undefined
    ? new CtrImageExtractor({ root, env: io.env, logger })
    : new DirectoryImageExtractor(resolve(dir));
}

/** Without --images the images come from containerd's ctr: where there is none, say what to pass. */
function withCtrHint(e: unknown): unknown {
  if (!isSystemError(e) || e.code !== 'ENOENT' || e.path !== 'ctr') return e;
  return Object.assign(e, {
    hint: "without --images the agent pulls the OSC's images with containerd's ctr; on a machine without containerd pass --images DIR (files at DIR/<url-encoded image>/<path>)",
  });
}

export function addApplyCommand(program: Command, io: CliIo): void {
  program
    .command('apply')
    .description('apply an osc.yaml to a root directory; resumes an interrupted apply of the same file')
    .requiredOption('--osc <file>', 'the osc.yaml to apply ("-": standard input)')
    .requiredOption('--root <dir>', 'the host root every path resolves under (/ on a node)')
    .option('--systemd <spec>', SYSTEMD_FLAG_HELP)
    .option('--images <dir>', 'take image files from DIR/<url-encoded image>/<path> instead of containerd')
    .addOption(logLevelOption('info'))
    .addOption(new Option('--log-format <format>').choices(['json', 'text']).default('json'))
    .action(async (flags: ApplyFlags) => {
      const root = checkedRoot(flags.root, io.env);
      const oscText = readDocument('--osc', flags.osc, io.readStdin);
      const logger = createLogger({
        name: 'gardener-node-agent',
        level: flags.logLevel,
        format: flags.logFormat,
        destination: io.stderr,
      });
      const result = await applyOsc({
        root,
        oscText,
        systemd: systemdFrom(flags.systemd, root, io, logger),
        images: imagesFrom(flags.images, root, io, logger),
        logger,
        onNodeAgentRestart: 'continue',
      }).catch((e: unknown) => {
        throw flags.images === undefined ? withCtrHint(e) : e;
      });
      io.stdout.write(
        stringifyYaml({
          outcome: result.outcome,
          resumed: result.resumed,
          steps: { total: result.stepsTotal, run: result.stepsRun },
          nodeAgentRestartRequired: result.nodeAgentRestartRequired,
        }),
      );
    });
}
