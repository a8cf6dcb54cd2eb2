/**
 * The production ImageExtractor (gardener v1.91.4 pkg/nodeagent/registry/containerd_extractor.go)
 * through the `ctr` CLI of containerd:
 *   ctr --address A --namespace N images pull --hosts-dir <root>/etc/containerd/certs.d IMAGE
 *   ctr --address A --namespace N images mount IMAGE <root>/var/lib/gardener-node-agent/tmp/mount-image-XXXXXX
 *   copy <mount>/<filePathInImage> -> destination (atomic, exact mode)
 *   ctr --address A --namespace N images unmount --rm <mount>      (always, also after a failed copy)
 * Address and namespace default as upstream: $CONTAINERD_ADDRESS or /run/containerd/containerd.sock,
 * $CONTAINERD_NAMESPACE or `default` (not `k8s.io`). Each call has a deadline and is retried, so a
 * registry hiccup does not fail the apply and a hung pull does not block it forever. The mount
 * directory is removed with rmdir, never recursively: if the unmount failed, the image stays safe.
 */
import { mkdtemp, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PATH } from '../../api/index.js';
import { type Logger, silentLogger } from '../../runtime/logging.js';
import { copyFileAtomic } from '../fs/copy-file.js';
import { ensureDir } from '../fs/ensure-dir.js';
import { failureText, type RunResult, runCommand } from '../process/run-command.js';
import { assertImagePath, type ImageExtractor, ImageFileNotFoundError } from './image-extractor.js';

export const CONTAINERD_HOSTS_DIR = '/etc/containerd/certs.d';
const DEFAULT_ADDRESS = '/run/containerd/containerd.sock';
const DEFAULT_NAMESPACE = 'default';

export interface CtrExtractorOptions {
  /** The host root; the hosts dir and the scratch directory resolve below it. */
  readonly root: string;
  readonly ctr?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly attempts?: number;
  readonly retryDelayMs?: number;
  readonly pullTimeoutMs?: number;
  readonly callTimeoutMs?: number;
  readonly logger?: Logger;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class CtrImageExtractor implements ImageExtractor {
  private readonly env: NodeJS.ProcessEnv;
  private readonly logger: Logger;

  constructor(private readonly options: CtrExtractorOptions) {
    this.env = options.env ?? process.env;
    this.logger = options.logger ?? silentLogger;
  }

  private globalArgs(): string[] {
    return [
      '--address',
      this.env.CONTAINERD_ADDRESS || DEFAULT_ADDRESS,
      '--namespace',
      this.env.CONTAINERD_NAMESPACE || DEFAULT_NAMESPACE,
    ];
  }

  /** Runs `ctr <args>` until it succeeds or the attempts are used up; the error names the step. */
  private async ctr(
    what: string,
    args: readonly string[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<void> {
    const attempts = this.options.attempts ?? 3;
    let last: RunResult | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      signal?.throwIfAborted();
      last = await runCommand(this.options.ctr ?? 'ctr', [...this.globalArgs(), ...args], {
        env: this.env,
        timeoutMs,
        signal,
      });
      if (!last.timedOut && last.exitCode === 0) return;
      this.logger.info(
        { attempt, attempts, step: what, reason: this.reason(last, timeoutMs) },
        'ctr call failed',
      );
      if (attempt < attempts) await delay(this.options.retryDelayMs ?? 2_000);
    }
    throw new Error(`${what} failed after ${attempts} attempts: ${this.reason(last!, timeoutMs)}`);
  }

  private reason(result: RunResult, timeoutMs: number): string {
    return result.timedOut ? `no result within ${timeoutMs} ms` : failureText(result);
  }

  async copyFromImage(
    image: string,
    filePathInImage: string,
    destination: string,
    mode: number,
    signal?: AbortSignal,
  ): Promise<void> {
    assertImagePath(image, filePathInImage);
    const callTimeout = this.options.callTimeoutMs ?? 60_000;
    const hostsDir = join(this.options.root, CONTAINERD_HOSTS_DIR);
    await this.ctr(
      `pulling image ${image}`,
      ['images', 'pull', '--hosts-dir', hostsDir, image],
      this.options.pullTimeoutMs ?? 10 * 60_000,
      signal,
    );

    const scratch = join(this.options.root, PATH.nodeAgentTempDir);
    await ensureDir(scratch, 0o700);
    const mountDir = await mkdtemp(join(scratch, 'mount-image-'));
    try {
      await this.ctr(`mounting image ${image}`, ['images', 'mount', image, mountDir], callTimeout, signal);
      let copyError: unknown;
      try {
        await this.copy(image, filePathInImage, join(mountDir, filePathInImage), destination, mode);
      } catch (e) {
        copyError = e;
      }
      try {
        await this.ctr(`unmounting image ${image}`, ['images', 'unmount', '--rm', mountDir], callTimeout);
      } catch (e) {
        // The copy's error is the one that explains the failure; a leaked mount is only logged then.
        if (copyError === undefined) throw e;
        this.logger.error({ err: e, path: mountDir }, 'Could not unmount image');
      }
      if (copyError !== undefined) throw copyError;
    } finally {
      await rmdir(mountDir).catch((e: Error) =>
        this.logger.error({ err: e, path: mountDir }, 'Could not remove image mount directory'),
      );
    }
  }

  private async copy(image: string, inImage: string, source: string, destination: string, mode: number) {
    try {
      await copyFileAtomic(source, destination, mode);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && (e as NodeJS.ErrnoException).path === source) {
        throw new ImageFileNotFoundError(image, inImage);
      }
      throw e;
    }
  }
}
