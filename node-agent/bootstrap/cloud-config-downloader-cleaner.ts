/**
 * CloudConfigDownloaderCleaner (gardener v1.91.4
 * cmd/gardener-node-agent/app/bootstrappers/cloud_config_downloader_cleaner.go, v1.91): once the
 * agent runs, the legacy cloud-config-downloader's state and its multi-user.target.wants link go;
 * systemd reloads only when there was a link to forget. Idempotent, so it may run on every start.
 */
import { rm } from 'node:fs/promises';
import { PATH } from '../../api/index.js';
import type { Logger } from '../../runtime/logging.js';
import { silentLogger } from '../../runtime/logging.js';
import { HostRoot, pathExists } from '../applier/host-root.js';
import type { Systemd } from '../systemd/systemd.js';

export interface CloudConfigDownloaderCleanerOptions {
  readonly root: string;
  readonly systemd: Systemd;
  readonly logger?: Logger;
}

export interface CloudConfigDownloaderCleanerResult {
  readonly removedDirectory: boolean;
  readonly removedWantsLink: boolean;
}

export async function cleanCloudConfigDownloader(
  options: CloudConfigDownloaderCleanerOptions,
): Promise<CloudConfigDownloaderCleanerResult> {
  const host = new HostRoot(options.root);
  const logger = options.logger ?? silentLogger;

  const dir = host.path(PATH.downloaderDir);
  await host.assertContained(dir);
  const removedDirectory = await pathExists(dir);
  // rm does not follow a symlink at `dir` itself; assertContained covered its parents.
  await rm(dir, { recursive: true, force: true });
  if (removedDirectory)
    logger.info({ path: PATH.downloaderDir }, 'Removed legacy cloud-config-downloader directory');

  const link = host.path(PATH.downloaderUnitWantsLink);
  await host.assertContained(link);
  if (!(await pathExists(link))) return { removedDirectory, removedWantsLink: false };
  await rm(link, { force: true });
  logger.info(
    { path: PATH.downloaderUnitWantsLink },
    'Removed cloud-config-downloader unit from multi-user.target',
  );
  await options.systemd.daemonReload();
  return { removedDirectory, removedWantsLink: true };
}
