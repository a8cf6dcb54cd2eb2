/**
 * The production containerd probe: `ctr version` asks the daemon for its version, the same
 * Version() call upstream makes over gRPC (the CLI instead: docs/compatibility.md N20), on the same socket and
 * namespace as the image extractor: $CONTAINERD_ADDRESS or /run/containerd/containerd.sock,
 * $CONTAINERD_NAMESPACE or `default`.
 */
import { failureText, runCommand } from '../../process/run-command.js';
import { type ContainerdCheck, ProbeUnavailableError } from './containerd-health.js';

const DEFAULT_ADDRESS = '/run/containerd/containerd.sock';
const DEFAULT_NAMESPACE = 'default';
export const CTR_VERSION_TIMEOUT_MS = 10_000;

export interface CtrVersionCheckOptions {
  readonly ctr?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

export function ctrVersionCheck(o: CtrVersionCheckOptions = {}): ContainerdCheck {
  const env = o.env ?? process.env;
  const timeoutMs = o.timeoutMs ?? CTR_VERSION_TIMEOUT_MS;
  const args = [
    '--address',
    env.CONTAINERD_ADDRESS || DEFAULT_ADDRESS,
    '--namespace',
    env.CONTAINERD_NAMESPACE || DEFAULT_NAMESPACE,
    'version',
  ];
  return async () => {
    let result: Awaited<ReturnType<typeof runCommand>>;
    try {
      result = await runCommand(o.ctr ?? 'ctr', args, { env, timeoutMs });
    } catch (e) {
      throw new ProbeUnavailableError(`cannot run ctr: ${(e as Error).message}`, { cause: e });
    }
    if (result.timedOut) throw new Error(`containerd did not answer within ${timeoutMs} ms`);
    if (result.exitCode !== 0) throw new Error(failureText(result));
  };
}
