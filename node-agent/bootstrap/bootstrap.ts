/**
 * The `bootstrap` procedure (gardener v1.91.4 pkg/nodeagent/bootstrap/bootstrap.go), run once by
 * gardener-node-init.service: format the kubelet data volume if configured, install the agent's own
 * unit, start the agent and disable the init unit so it never runs again. Any error aborts; the
 * init unit retries the whole procedure, so every step is idempotent.
 */
import {
  NODE_AGENT_UNIT_CONTENT,
  NODE_AGENT_UNIT_FILE_MODE,
  type NodeAgentConfiguration,
  UNIT,
} from '../../api/index.js';
import type { Logger } from '../../runtime/logging.js';
import { silentLogger } from '../../runtime/logging.js';
import { HostRoot } from '../applier/host-root.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { Systemd } from '../systemd/systemd.js';
import type { Disk } from './disk.js';

export interface BootstrapOptions {
  readonly root: string;
  readonly config: Pick<NodeAgentConfiguration, 'bootstrap'>;
  readonly systemd: Systemd;
  /**
   * The agent's unit: v1.91's (`--config`) by default; v1.150's (`--config-dir`) when bootstrap was
   * run as v1.150's init.sh runs it, so the agent starts reading the file it was given.
   */
  readonly unitContent?: string;
  /** Needed only when the config sets `bootstrap.kubeletDataVolumeSize`. */
  readonly disk?: Disk;
  readonly logger?: Logger;
}

export async function runBootstrap(options: BootstrapOptions): Promise<void> {
  const host = new HostRoot(options.root);
  const logger = options.logger ?? silentLogger;
  const { systemd } = options;

  const size = options.config.bootstrap?.kubeletDataVolumeSize;
  if (size !== undefined) {
    logger.info({ kubeletDataVolumeSize: size }, 'Formatting kubelet data volume');
    if (!options.disk) throw new Error('bootstrap.kubeletDataVolumeSize is set but no Disk was given');
    await options.disk.formatKubeletDataVolume(size);
  }

  const unitFile = host.unitFile(UNIT.nodeAgent);
  await host.prepareParent(unitFile);
  logger.info({ unitName: UNIT.nodeAgent }, 'Writing unit file for gardener-node-agent');
  await writeFileAtomic(unitFile, options.unitContent ?? NODE_AGENT_UNIT_CONTENT, NODE_AGENT_UNIT_FILE_MODE);

  logger.info('Reloading systemd daemon');
  await systemd.daemonReload();
  logger.info({ unitName: UNIT.nodeAgent }, 'Enabling and starting gardener-node-agent unit');
  await systemd.enable([UNIT.nodeAgent]);
  await systemd.start(UNIT.nodeAgent);
  logger.info({ unitName: UNIT.nodeInit }, 'Disabling gardener-node-init unit');
  await systemd.disable([UNIT.nodeInit]);

  logger.info('Bootstrap procedure finished, terminating');
}
