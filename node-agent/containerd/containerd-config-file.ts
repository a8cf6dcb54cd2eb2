/**
 * containerd's config.toml as gardener v1.150.0's agent owns it (containerd.go
 * `ReconcileContainerdConfig`): only when the OSC has `criConfig.containerd`; the file is taken
 * from `containerd config default` when missing, patched (patch-containerd-config.ts) and written
 * back in go-toml v1's bytes, 0644. Computed in the prepare half of an apply (nothing written, a
 * failure leaves the node as it was) and written in the commit half, with its directories.
 */
import { readFile } from 'node:fs/promises';
import type { OperatingSystemConfig } from '../../api/index.js';
import { encodeGoToml } from '../../api/toml/go-toml-encode.js';
import { decodeToml } from '../../api/toml/toml-decode.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { ensureDir } from '../fs/ensure-dir.js';
import { CONTAINERD, CONTAINERD_DIRS } from './containerd-paths.js';
import { type ContainerdTool, isAtLeast22 } from './containerd-tool.js';
import type { HostPaths } from './host-paths.js';
import { patchContainerdConfig } from './patch-containerd-config.js';

export const CONTAINERD_CONFIG_MODE = 0o644;

export interface ContainerdConfigWrite {
  /** The bytes config.toml gets. */
  readonly content: string;
  /** What was there before (undefined: no file yet). */
  readonly previous: string | undefined;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** undefined when the OSC leaves containerd's configuration alone. */
export async function computeContainerdConfig(
  host: HostPaths,
  osc: OperatingSystemConfig,
  tool: ContainerdTool | undefined,
  signal?: AbortSignal,
): Promise<ContainerdConfigWrite | undefined> {
  const cri = osc.spec.criConfig;
  if (!cri?.containerd) return undefined;
  if (!tool)
    throw new Error(
      'the OSC configures containerd (spec.criConfig.containerd) but this agent was given no containerd to ask',
    );
  const previous = await readIfExists(host.path(CONTAINERD.configFile));
  const text = previous ?? (await tool.defaultConfig(signal));
  let config: ReturnType<typeof decodeToml>;
  try {
    config = decodeToml(text);
  } catch (e) {
    throw new Error(`unable to decode containerd default config: ${(e as Error).message}`);
  }
  const atLeast22 = isAtLeast22(await tool.version(signal));
  return { content: encodeGoToml(patchContainerdConfig(config, cri, { atLeast22 })), previous };
}

export async function writeContainerdConfig(host: HostPaths, write: ContainerdConfigWrite): Promise<void> {
  for (const dir of CONTAINERD_DIRS) await ensureDir(host.path(dir));
  if (write.content === write.previous) return;
  await writeFileAtomic(host.path(CONTAINERD.configFile), write.content, CONTAINERD_CONFIG_MODE);
}
