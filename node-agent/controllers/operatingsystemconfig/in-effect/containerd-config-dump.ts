/**
 * containerd's effective configuration, `containerd config dump`, against the config.toml the
 * agent wrote for a pool that has it own containerd's configuration (`spec.criConfig.containerd`,
 * the v1.150 contract, node-agent/containerd/containerd-config-file.ts): for each field the agent
 * sets (patch-containerd-config.ts), what containerd takes once it has read the file and every file
 * it imports. A drop-in of /etc/containerd/conf.d that sets `SystemdCgroup` otherwise, an import
 * that does not load, a file containerd reads differently: a mismatch, named by its TOML path.
 *
 * `config dump` reads the files as the daemon does at its start (containerd v1.6.20 and v2.x
 * cmd/containerd/command/config.go → services/server/config `LoadConfig`); it does not ask the
 * running daemon. Its `imports` are the files it loaded (config.toml itself and each file a glob
 * matched), not the globs, so the written globs are expanded here and each match must be among
 * them. containerd 2.x dumps a version 2 file migrated to version 3: each side is read at the paths
 * of its own version (containerd-paths.ts).
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { OperatingSystemConfig } from '../../../../api/index.js';
import { decodeToml } from '../../../../api/toml/toml-decode.js';
import type { TomlTable } from '../../../../api/toml/toml-value.js';
import { CONTAINERD, containerdConfigPaths } from '../../../containerd/containerd-paths.js';
import { containerdConfigVersion } from '../../../containerd/patch-containerd-config.js';
import { runCommand } from '../../../process/run-command.js';
import type { InEffectCheck, Mismatch } from './in-effect-check.js';

/** `containerd config dump`'s standard output. */
export type ConfigDump = (signal: AbortSignal) => Promise<string>;
/** The files an import glob of config.toml matches (containerd's `filepath.Glob`). */
export type ExpandImport = (pattern: string) => Promise<readonly string[]>;

function at(table: TomlTable, path: readonly string[]): unknown {
  let value: unknown = table;
  for (const key of path) value = (value as Record<string, unknown> | null | undefined)?.[key];
  return value;
}

const tomlPath = (path: readonly string[]) =>
  path.map((k) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k))).join('.');

const text = (value: unknown): string =>
  value === undefined || value === null
    ? '(unset)'
    : Array.isArray(value)
      ? `[${value.map(text).join(', ')}]`
      : typeof value === 'string'
        ? JSON.stringify(value)
        : String(value);

/** The CNI binary directories of a configuration: `bin_dirs` where set, else `[bin_dir]`. */
function cniBinDirs(config: TomlTable): unknown {
  const paths = containerdConfigPaths(containerdConfigVersion(config));
  const dirs = paths.cniBinDirs ? at(config, paths.cniBinDirs) : undefined;
  if (Array.isArray(dirs)) return dirs;
  const dir = at(config, paths.cniBinDir);
  return dir === undefined || dir === null ? undefined : [dir];
}

/**
 * The fields of `written` the agent sets that `dump` has otherwise; `imported` are the files the
 * written import globs match. Pure.
 */
export function containerdFieldsDiffer(
  written: TomlTable,
  dump: TomlTable,
  imported: readonly string[],
): Mismatch[] {
  const mine = containerdConfigPaths(containerdConfigVersion(written));
  const theirs = containerdConfigPaths(containerdConfigVersion(dump));
  const mismatches: Mismatch[] = [];
  const compare = (field: string, rendered: unknown, running: unknown) => {
    if (rendered === undefined || rendered === null) return;
    if (text(rendered) !== text(running))
      mismatches.push({ field, rendered: text(rendered), running: text(running) });
  };
  for (const key of ['sandboxImage', 'cgroupDriver', 'registryConfigPath'] as const)
    compare(tomlPath(theirs[key]), at(written, mine[key]), at(dump, theirs[key]));
  compare(
    tomlPath(
      theirs.cniBinDirs && Array.isArray(at(dump, theirs.cniBinDirs)) ? theirs.cniBinDirs : theirs.cniBinDir,
    ),
    cniBinDirs(written),
    cniBinDirs(dump),
  );
  const loaded = at(dump, ['imports']);
  const loadedFiles = Array.isArray(loaded) ? loaded.map(String) : [];
  const missing = imported.filter((f) => !loadedFiles.includes(f));
  if (missing.length > 0)
    mismatches.push({ field: 'imports', rendered: text([...imported]), running: text(loadedFiles) });
  return mismatches;
}

/** `containerd config dump` of this machine's containerd. */
export function hostConfigDump(env: NodeJS.ProcessEnv = process.env): ConfigDump {
  return async (signal) => {
    const result = await runCommand('containerd', ['config', 'dump'], { env, signal, timeoutMs: 30_000 });
    if (result.exitCode !== 0)
      throw new Error(`containerd config dump failed (exit ${result.exitCode}): ${result.stderr.trim()}`);
    return result.stdout;
  };
}

/** `filepath.Glob` for the patterns config.toml holds: a `*` in the file name only. */
export function globUnder(root: string): ExpandImport {
  return async (pattern) => {
    const dir = dirname(pattern);
    const name = basename(pattern);
    if (dir.includes('*')) throw new Error(`cannot expand import ${pattern}: a pattern in a directory`);
    const re = new RegExp(
      `^${name
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*')}$`,
    );
    let entries: string[];
    try {
      entries = await readdir(join(root, dir));
    } catch {
      return [];
    }
    return entries
      .filter((e) => re.test(e))
      .sort()
      .map((e) => join(dir, e));
  };
}

export function containerdConfigDumpCheck(o: {
  /** The agent's root, where config.toml is read. */
  readonly root: string;
  readonly dump: ConfigDump;
  readonly expand?: ExpandImport;
}): InEffectCheck {
  const expand = o.expand ?? globUnder(o.root);
  return {
    name: 'containerd config dump',
    async check(osc: OperatingSystemConfig, signal): Promise<readonly Mismatch[]> {
      if (!osc.spec.criConfig?.containerd) return [];
      const written = decodeToml(await readFile(join(o.root, CONTAINERD.configFile), 'utf8'));
      const dump = decodeToml(await o.dump(signal));
      const patterns = at(written, ['imports']);
      const imported: string[] = [];
      for (const p of Array.isArray(patterns) ? patterns.map(String) : [])
        imported.push(...(p.includes('*') ? await expand(p) : [p]));
      return containerdFieldsDiffer(written, dump, imported);
    },
  };
}
