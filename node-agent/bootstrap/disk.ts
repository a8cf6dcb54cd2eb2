/**
 * Formatting the kubelet data volume (gardener v1.91.4
 * pkg/nodeagent/bootstrap/kubelet_data_volume.go) behind an interface: `ScriptDisk` runs the shared
 * formatter script on the node (production), `MemoryDisk` and `RecordingDisk` only remember the
 * request (tests, demos). Nothing else in the agent touches block devices.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatKubeletDataVolumeScript, PATH } from '../../api/index.js';
import type { Logger } from '../../runtime/logging.js';
import { silentLogger } from '../../runtime/logging.js';
import { HostRoot } from '../applier/host-root.js';
import { ensureDir } from '../fs/ensure-dir.js';

export interface Disk {
  /** Formats and mounts the one unused disk of exactly `sizeInBytes` bytes; a no-op once it exists. */
  formatKubeletDataVolume(sizeInBytes: number): Promise<void>;
}

/**
 * The agent's temp dir: root-only (upstream creates it with mode bits 0000, gardener v1.91.4
 * pkg/nodeagent/bootstrap/bootstrap.go).
 */
export const NODE_AGENT_TEMP_DIR_MODE = 0o700;
export const FORMATTER_SCRIPT_PREFIX = 'format-kubelet-data-volume-';
export const FORMATTER_SCRIPT_MODE = 0o755;

export interface ScriptDiskOptions {
  /** The host root the temp file goes under (`/` on a node). */
  readonly root: string;
  /** The environment of `/usr/bin/env bash` (its PATH finds lsblk, mkfs.ext4, ...). */
  readonly env?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
}

interface Combined {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
}

/** Runs a program and returns stdout and stderr interleaved as they arrived (Go's CombinedOutput). */
function runCombined(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Combined> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (exitCode, signal) =>
      resolve({ exitCode, signal, output: Buffer.concat(chunks).toString('utf8') }),
    );
  });
}

/** Go's text for a failed exec.Cmd: `exit status 1`, `signal: killed`. */
function exitText(result: Combined): string {
  if (result.exitCode !== null) return `exit status ${result.exitCode}`;
  return `signal: ${result.signal === 'SIGKILL' ? 'killed' : result.signal}`;
}

/**
 * Production: writes the script to `/var/lib/gardener-node-agent/tmp/format-kubelet-data-volume-<random>`
 * (0755; the tmp dir is created first, the v1.94 fix), runs `/usr/bin/env bash <file>` with no
 * deadline (mkfs of a large disk takes minutes; the init unit is a oneshot without a timeout),
 * and removes the file whatever happened.
 */
export class ScriptDisk implements Disk {
  private readonly host: HostRoot;
  private readonly logger: Logger;

  constructor(private readonly options: ScriptDiskOptions) {
    this.host = new HostRoot(options.root);
    this.logger = options.logger ?? silentLogger;
  }

  async formatKubeletDataVolume(sizeInBytes: number): Promise<void> {
    const script = formatKubeletDataVolumeScript(sizeInBytes);
    const tempDir = this.host.path(PATH.nodeAgentTempDir);
    await this.host.assertContained(join(tempDir, 'x'));
    await ensureDir(tempDir, NODE_AGENT_TEMP_DIR_MODE);
    const file = join(tempDir, `${FORMATTER_SCRIPT_PREFIX}${randomBytes(8).toString('hex')}`);
    // `wx`: a fresh file, never written through something planted under that name.
    await writeFile(file, script, { flag: 'wx', mode: FORMATTER_SCRIPT_MODE });
    try {
      await chmod(file, FORMATTER_SCRIPT_MODE);
      this.logger.info({ size: sizeInBytes, script: file }, 'Formatting kubelet data volume');
      const result = await runCombined('/usr/bin/env', ['bash', file], this.options.env ?? process.env);
      if (result.exitCode !== 0) {
        throw new Error(
          `failed executing formatter bash script: ${exitText(result)} (output: ${JSON.stringify(result.output)})`,
        );
      }
      this.logger.info({ size: sizeInBytes, output: result.output }, 'Kubelet data volume formatted');
    } finally {
      await rm(file, { force: true });
    }
  }
}
