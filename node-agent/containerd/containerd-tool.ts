/**
 * What the agent asks containerd itself: its default configuration (`containerd config default`,
 * gardener v1.150.0 containerd_config.go `ensureContainerdDefaultConfig`) and its version (upstream
 * asks the running daemon over gRPC, pkg/nodeagent/containerd `VersionGreaterThanEqual22`; ours
 * asks `ctr version` for the server's). Tests and tools use hack/node-agent-doubles/fake-containerd.ts.
 */
import { runCommand } from '../process/run-command.js';

export interface ContainerdTool {
  /** `containerd config default`'s standard output. */
  defaultConfig(signal?: AbortSignal): Promise<string>;
  /** The running containerd's version as it reports it, e.g. `v2.2.0` or `1.7.23~ds2`. */
  version(signal?: AbortSignal): Promise<string>;
}

/** Masterminds' `>= 2.2` on what containerd reports: a distribution suffix counts as lower. */
export function isAtLeast22(version: string): boolean {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(.*)$/.exec(version.trim());
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major !== 2 || minor !== 2) return major > 2 || (major === 2 && minor > 2);
  // 2.2.x: only a plain release or build metadata satisfies >= 2.2; a pre-release does not
  return m[4] === '' || m[4]!.startsWith('+');
}

async function output(file: string, args: string[], env: NodeJS.ProcessEnv, signal?: AbortSignal) {
  const result = await runCommand(file, args, { env, signal, timeoutMs: 30_000 });
  if (result.exitCode !== 0)
    throw new Error(`${file} ${args.join(' ')} failed (exit ${result.exitCode}): ${result.stderr.trim()}`);
  return result.stdout;
}

/** The real containerd of this machine. */
export function hostContainerdTool(env: NodeJS.ProcessEnv = process.env): ContainerdTool {
  return {
    defaultConfig: (signal) => output('containerd', ['config', 'default'], env, signal),
    version: async (signal) => {
      const text = await output('ctr', ['version'], env, signal);
      const server = text.slice(text.indexOf('Server:'));
      const m = /Version:\s*(\S+)/.exec(server);
      if (!m) throw new Error(`ctr version printed no server version: ${text.trim()}`);
      return m[1]!;
    },
  };
}
