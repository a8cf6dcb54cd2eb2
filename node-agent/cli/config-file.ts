/**
 * Which NodeAgentConfiguration file the agent reads. `--config FILE` is the v1.91.4 agent's flag
 * (gardener v1.91.4 cmd/gardener-node-agent/app/options.go); `--config-dir DIR` is v1.150.0's,
 * whose agent reads `DIR/config-<its own gitVersion>.yaml` (gardener v1.150.0
 * pkg/api/config/nodeagent/v1alpha1/helper/utils.go `GetConfigFilePath`). Ours is not built
 * from gardener's tree and has no such version, so it reads the newest `config-<version>.yaml`
 * gardenlet wrote: during a gardenlet upgrade the new file is written beside the old one, which
 * the same apply deletes (docs/compatibility.md V150-20).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PATH } from '../../api/index.js';
import { type SemVer, tryParseSemVer } from '../../api/semver.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { isSystemError, systemErrorReason } from '../../runtime/cli/system-error.js';

export interface ConfigFlags {
  readonly config?: string;
  readonly configDir?: string;
}

const VERSIONED_CONFIG = /^config-(v[0-9].*)\.yaml$/;

function compareSemVer(a: SemVer, b: SemVer): number {
  const byNumber = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (byNumber !== 0) return byNumber;
  // a release is newer than its pre-releases
  if (a.prerelease === b.prerelease) return 0;
  if (!a.prerelease) return 1;
  if (!b.prerelease) return -1;
  return a.prerelease < b.prerelease ? -1 : 1;
}

/** The newest `config-<version>.yaml` among `names`, or undefined. */
export function newestVersionedConfig(names: readonly string[]): string | undefined {
  let best: { name: string; version: SemVer } | undefined;
  for (const name of names) {
    const text = VERSIONED_CONFIG.exec(name)?.[1];
    const version = text === undefined ? undefined : tryParseSemVer(text);
    if (version && (!best || compareSemVer(version, best.version) > 0)) best = { name, version };
  }
  return best?.name;
}

/** The file to read: `--config`, the newest versioned file of `--config-dir`, or `fallback`. */
export function configFileToRead(flags: ConfigFlags, fallback: string = PATH.nodeAgentConfig): string {
  if (flags.config !== undefined && flags.configDir !== undefined)
    throw new UsageError('--config and --config-dir exclude each other: give one');
  if (flags.configDir === undefined) return flags.config ?? fallback;
  let names: string[];
  try {
    names = readdirSync(flags.configDir);
  } catch (e) {
    const why = isSystemError(e) ? systemErrorReason(e) : (e as Error).message;
    throw new UsageError(`cannot read --config-dir ${flags.configDir}: ${why}`);
  }
  const name = newestVersionedConfig(names);
  if (name === undefined)
    throw new UsageError(`--config-dir ${flags.configDir} holds no config-<version>.yaml`);
  return join(flags.configDir, name);
}
