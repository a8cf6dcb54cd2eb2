/** Runs one step of a plan against the host root. Every step is idempotent: repeating it is safe. */
import { lstat, readFile, rm, rmdir } from 'node:fs/promises';
import type { Logger } from '../../runtime/logging.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { copyFileAtomic } from '../fs/copy-file.js';
import { fileModeOf } from '../planner/file-mode.js';
import type { Plan } from '../planner/plan.js';
import type { ImageExtractor } from '../registry/image-extractor.js';
import type { Systemd } from '../systemd/systemd.js';
import { inlineBytes } from './file-content.js';
import { type HostRoot, pathExists } from './host-root.js';
import type { NodeDrain } from './node-drain.js';
import { planIndex } from './plan-index.js';
import { copyImageFile } from './prepare.js';
import type { Step } from './steps.js';

/**
 * Unit files and drop-ins are the agent's and root's alone (gardener v1.91.4
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go).
 */
export const UNIT_FILE_MODE = 0o600;
export interface StepContext {
  readonly host: HostRoot;
  readonly plan: Plan;
  readonly systemd: Systemd;
  readonly images: ImageExtractor;
  /** Image files already pulled and staged by the prepare phase, by host path. */
  readonly staged?: ReadonlyMap<string, string>;
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  /** For the drain steps of a DrainAndRestart. */
  readonly drain?: NodeDrain;
}

function drainOf(ctx: StepContext): NodeDrain {
  if (!ctx.drain) throw new Error('the plan drains the node, and this apply has no access to it');
  return ctx.drain;
}

function missing(what: string): Error {
  return new Error(`the plan has no ${what} (corrupt progress file?)`);
}

async function writeFileStep(ctx: StepContext, path: string): Promise<void> {
  const file = planIndex(ctx.plan).files.get(path);
  if (!file) throw missing(`file ${path}`);
  const destination = ctx.host.path(path);
  const mode = fileModeOf(file);
  await ctx.host.prepareParent(destination);
  const { inline, imageRef } = file.content;
  if (inline) {
    await writeFileAtomic(destination, inlineBytes(inline), mode);
    ctx.logger.info({ path }, 'Successfully applied new or changed file');
  } else if (imageRef) {
    const staged = ctx.staged?.get(path);
    if (staged) await copyFileAtomic(staged, destination, mode);
    else await copyImageFile(ctx.images, file, destination, mode, ctx.signal);
    ctx.logger.info({ path, image: imageRef.image }, 'Successfully applied new or changed file from image');
  } else {
    // secretRef files are inlined by gardenlet; the agent cannot read seed secrets (v1.91 skips them too).
    ctx.logger.warn({ path }, 'File has neither inline content nor an image reference, skipping it');
  }
}

/**
 * Writes only when the bytes differ, but always restores the mode (gardener v1.91.4
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go: a manual chmod is undone).
 */
async function writeUnitFile(ctx: StepContext, path: string, content: string): Promise<void> {
  await ctx.host.prepareParent(path);
  const stat = await lstat(path).catch(() => undefined);
  // lstat, not stat: a masked unit is a symlink to /dev/null, which must be replaced, never chmod'ed.
  if (stat?.isFile() && (await readFile(path, 'utf8')) === content) {
    if ((stat.mode & 0o7777) !== UNIT_FILE_MODE) await writeFileAtomic(path, content, UNIT_FILE_MODE);
    return;
  }
  await writeFileAtomic(path, content, UNIT_FILE_MODE);
}

async function remove(ctx: StepContext, path: string, recursive = false): Promise<void> {
  await ctx.host.assertContained(path);
  await rm(path, { force: true, recursive });
}

async function removeDirIfEmpty(ctx: StepContext, dir: string): Promise<void> {
  await ctx.host.assertContained(dir);
  try {
    await rmdir(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
  }
}

export async function executeStep(step: Step, ctx: StepContext): Promise<void> {
  const { host, systemd, plan } = ctx;
  switch (step.op) {
    case 'write-file':
      return writeFileStep(ctx, step.path);
    case 'write-unit': {
      const unit = planIndex(plan).units.get(step.unit);
      if (unit?.content === undefined) throw missing(`content for unit ${step.unit}`);
      return writeUnitFile(ctx, host.unitFile(step.unit), unit.content);
    }
    case 'write-drop-in': {
      const dropIn = planIndex(plan)
        .units.get(step.unit)
        ?.dropIns.write.find((d) => d.name === step.dropIn);
      if (!dropIn) throw missing(`drop-in ${step.dropIn} of unit ${step.unit}`);
      return writeUnitFile(ctx, host.dropInFile(step.unit, step.dropIn), dropIn.content);
    }
    case 'delete-drop-in':
      return remove(ctx, host.dropInFile(step.unit, step.dropIn));
    case 'remove-drop-in-dir':
      return remove(ctx, host.dropInDir(step.unit), true);
    case 'remove-drop-in-dir-if-empty':
      return removeDirIfEmpty(ctx, host.dropInDir(step.unit));
    case 'enable':
      return systemd.enable([step.unit]);
    case 'disable':
      return systemd.disable([step.unit]);
    case 'disable-removed-unit':
      if (await pathExists(host.unitFile(step.unit))) await systemd.disable([step.unit]);
      return;
    case 'stop-removed-unit':
      if (await pathExists(host.unitFile(step.unit))) await systemd.stop(step.unit);
      return;
    case 'delete-unit-file':
      return remove(ctx, host.unitFile(step.unit));
    case 'daemon-reload':
      return systemd.daemonReload();
    case 'restart-node-agent':
      // Not a systemd call: the orchestrator decides whether this process exits.
      return;
    case 'restart':
      if (step.ifUnitExists && !(await host.unitExists(step.unit))) return;
      return systemd.restart(step.unit);
    case 'stop':
      return systemd.stop(step.unit);
    case 'reload':
      // Not through runCommandOnce: a reload keeps the unit's InvocationID, so systemd cannot tell
      // whether one cut off by a crash happened; repeating a reload is harmless.
      if (step.ifUnitExists && !(await host.unitExists(step.unit))) return;
      return systemd.reload(step.unit);
    case 'cordon-node':
      return drainOf(ctx).cordon(ctx.signal);
    case 'evict-pods':
      return drainOf(ctx).evictPods(ctx.signal);
    case 'wait-node-ready':
      return drainOf(ctx).waitReady(ctx.signal);
    case 'uncordon-node':
      return drainOf(ctx).uncordon(ctx.signal);
    case 'delete-file':
      await remove(ctx, host.path(step.path));
      ctx.logger.info({ path: step.path }, 'Removed file');
      return;
  }
}
