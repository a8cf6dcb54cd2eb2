/**
 * `apply --osc FILE --root DIR [--systemd SPEC] [--containerd SPEC] [--images DIR] [--drift repair|report|off]`:
 * applies an osc.yaml to a root directory, resumably. The node is read first: drift from the last
 * applied OSC is repaired, reported or adopted as the drift policy says, so applying the same
 * osc.yaml again repairs a node someone changed (docs/node-agent.md#drift). `--systemd` defaults to systemctl only when the root is `/`:
 * restarting the machine's units for a tree in a temp dir is never what was meant; `--containerd`
 * likewise defaults to the machine's containerd only there.
 */

import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { stringifyYaml } from '../../api/index.js';
import { logLevelOption } from '../../runtime/cli/help.js';
import { isSystemError } from '../../runtime/cli/system-error.js';
import { createLogger, type LogFormat, type Logger, type LogLevel } from '../../runtime/logging.js';
import { applyOsc } from '../applier/apply-osc.js';
import { driftViews } from '../plan-view/drift-view.js';
import { CtrImageExtractor } from '../registry/ctr-extractor.js';
import { DirectoryImageExtractor } from '../registry/directory-extractor.js';
import type { ImageExtractor } from '../registry/image-extractor.js';
import { containerdFlagHelp, containerdFrom, systemdFlagHelp, systemdFrom } from './backends.js';
import type { CliIo } from './cli-io.js';
import { agentDisruptionPolicy, disruptionPolicyOption } from './disruption-policy-flag.js';
import { checkedRoot } from './host-root-guard.js';
import { readDocument } from './read-osc.js';

interface ApplyFlags {
  readonly osc: string;
  readonly root: string;
  readonly systemd?: string;
  readonly containerd?: string;
  readonly images?: string;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly disruptionPolicy?: string;
  readonly drift: 'repair' | 'report' | 'off';
}

const DRIFT_MODES = { repair: 'repair', report: 'report-only', off: undefined } as const;

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
    .option('--systemd <spec>', systemdFlagHelp(io))
    .option('--containerd <spec>', containerdFlagHelp(io))
    .option('--images <dir>', 'take image files from DIR/<url-encoded image>/<path> instead of containerd')
    .addOption(logLevelOption('info'))
    .addOption(new Option('--log-format <format>').choices(['json', 'text']).default('json'))
    .addOption(disruptionPolicyOption())
    .addOption(
      new Option(
        '--drift <mode>',
        "the node's drift from the last applied OSC: repair (as the drift policy says), report only, or off",
      )
        .choices(Object.keys(DRIFT_MODES))
        .default('repair'),
    )
    .action(async (flags: ApplyFlags) => {
      const root = checkedRoot(flags.root, io.env);
      const oscText = readDocument('--osc', flags.osc, io.readStdin);
      const disruptionPolicy = agentDisruptionPolicy(flags.disruptionPolicy, root, io.readStdin);
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
        disruptionPolicy,
        drift: DRIFT_MODES[flags.drift],
        // a v1.150.0 OSC's containerd configuration: by default this machine's, never for a tree elsewhere
        containerd: containerdFrom(flags.containerd, root, io, logger),
      }).catch((e: unknown) => {
        throw flags.images === undefined ? withCtrHint(e) : e;
      });
      io.stdout.write(
        stringifyYaml({
          outcome: result.outcome,
          resumed: result.resumed,
          steps: { total: result.stepsTotal, run: result.stepsRun },
          nodeAgentRestartRequired: result.nodeAgentRestartRequired,
          // listed only when there is some, so the output of a node without drift is as before
          ...(result.drift?.length ? { drift: driftViews(result.drift) } : {}),
        }),
      );
    });
}
