/**
 * `bootstrap [--config FILE | --config-dir DIR] [--root DIR] [--systemd SPEC] [--disk SPEC]` (gardener v1.91.4
 * pkg/nodeagent/bootstrap/bootstrap.go): what gardener-node-init.service runs once per node.
 * `--root` defaults to `/` (the init script passes no flag); `--config` defaults to
 * `<root>/var/lib/gardener-node-agent/config.yaml`.
 *
 * `--systemd` and `--disk` default to the real thing (`systemctl`, `script`) only when the root is
 * `/`: restarting units or formatting the machine's disks for a tree in a temp dir is never what
 * was meant. `--disk` is needed only when the config sets `bootstrap.kubeletDataVolumeSize`.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import {
  loadNodeAgentConfiguration,
  NODE_AGENT_UNIT_CONTENT_V150,
  PATH,
  ValidationError,
} from '../../api/index.js';
import { createLogger, type LogFormat, type LogLevel } from '../../runtime/logging.js';
import { runBootstrap } from '../bootstrap/bootstrap.js';
import { NODE_AGENT_VERSION } from '../version.js';
import { diskFlagHelp, diskFrom, systemdFlagHelp, systemdFrom } from './backends.js';
import { withCaFileRead } from './ca-file.js';
import type { CliIo } from './cli-io.js';
import { configFileToRead } from './config-file.js';
import { checkedRoot } from './host-root-guard.js';
import { readDocument } from './read-osc.js';

interface BootstrapFlags {
  readonly config?: string;
  readonly configDir?: string;
  readonly root: string;
  readonly systemd?: string;
  readonly disk?: string;
  /** `--log-level`: overrides the config's logLevel. */
  readonly logLevel?: LogLevel;
}

export function addBootstrapCommand(program: Command, io: CliIo): void {
  program
    .command('bootstrap')
    .description('one-shot node setup: format the kubelet data volume, install and start the agent')
    .option('--config <file>', `the NodeAgentConfiguration (default: <root>${PATH.nodeAgentConfig})`)
    .option('--config-dir <dir>', 'read the newest config-<version>.yaml in DIR, as v1.150 runs bootstrap')
    .option('--root <dir>', 'the host root every path resolves under', '/')
    .option('--systemd <spec>', systemdFlagHelp(io))
    .option('--disk <spec>', diskFlagHelp(io))
    .action(async (flags: BootstrapFlags) => {
      const root = checkedRoot(flags.root, io.env);
      const configFile = configFileToRead(flags, join(root, PATH.nodeAgentConfig));
      const loaded = loadNodeAgentConfiguration(readDocument('--config', configFile, io.readStdin));
      if (!loaded.ok) throw new ValidationError(`NodeAgentConfiguration ${configFile}`, loaded.errors);
      const config = withCaFileRead(loaded.value, root);
      const size = config.bootstrap?.kubeletDataVolumeSize;
      if (size !== undefined && size <= 0) {
        throw new ValidationError(`NodeAgentConfiguration ${configFile}`, [
          {
            type: 'Invalid',
            field: 'bootstrap.kubeletDataVolumeSize',
            value: size,
            detail: 'must be greater than 0 (no disk has 0 bytes)',
          },
        ]);
      }
      const logger = createLogger({
        name: 'gardener-node-agent',
        level: flags.logLevel ?? ((config.logLevel || 'info') as LogLevel),
        format: (config.logFormat || 'json') as LogFormat,
        destination: io.stderr,
      });
      const systemd = systemdFrom(flags.systemd, root, io, logger);
      const disk = size === undefined ? undefined : diskFrom(flags.disk, root, io, logger);
      logger.info({ version: NODE_AGENT_VERSION }, 'Starting gardener-node-init');
      const shown: Record<string, string | undefined> = {
        config: configFile,
        root,
        systemd: flags.systemd,
        disk: flags.disk,
      };
      for (const [name, value] of Object.entries(shown)) logger.info(`FLAG: --${name}=${value ?? ''}`);
      await runBootstrap({
        root,
        config,
        // v1.150's init.sh runs `bootstrap --config-dir`: the unit it expects starts the agent so
        ...(flags.configDir !== undefined ? { unitContent: NODE_AGENT_UNIT_CONTENT_V150 } : {}),
        systemd,
        disk,
        logger,
      });
    });
}
