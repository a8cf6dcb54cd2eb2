/**
 * The prepare half of prepare-then-commit: everything about an apply that can be known or fetched
 * before the first write is done here, so a failure leaves the node exactly as it was.
 *
 *  1. The node's own tree: every path the pending steps write or remove must stay inside the root
 *     (no symlink leading out), every write needs its nearest existing ancestor to be a directory
 *     and its destination, if present, to be a regular file. Problems are a ValidationError naming
 *     the OSC field (exit 2).
 *  2. Images: every file taken from an image is pulled and copied into a staging directory under
 *     the agent's scratch space; the write step later only copies it into place. A registry or
 *     containerd failure fails the apply here (exit 1), before anything else was touched.
 *
 * `cleanup` removes the staging directory; after a failure also the directories it had to create.
 * A kill skips `cleanup`: the next apply removes what it left (removeStaleStaging).
 */
import { mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  type FieldError,
  type OperatingSystemConfig,
  type OscFile,
  PATH,
  ValidationError,
} from '../../api/index.js';
import type { Logger } from '../../runtime/logging.js';
import { ensureDir } from '../fs/ensure-dir.js';
import type { Plan } from '../planner/plan.js';
import { type ImageExtractor, ImageFileNotFoundError } from '../registry/image-extractor.js';
import type { HostRoot } from './host-root.js';
import type { Step } from './steps.js';
import { writtenPaths } from './written-paths.js';

/** [v1.119] images built with ko keep the binary elsewhere. */
const NODE_AGENT_PATH_IN_IMAGE = '/gardener-node-agent';
const NODE_AGENT_PATH_IN_KO_IMAGE = '/ko-app/gardener-node-agent';
const STAGING_PREFIX = 'staged-';

export interface PrepareOptions {
  readonly host: HostRoot;
  readonly plan: Plan;
  /** The steps still to run. */
  readonly pending: readonly Step[];
  /** The OSC being applied, to name fields. */
  readonly osc: OperatingSystemConfig;
  readonly images: ImageExtractor;
  /** Names the staging directory (the OSC checksum). */
  readonly tag: string;
  readonly signal?: AbortSignal;
  readonly logger: Logger;
}

export interface Prepared {
  /** The staged copy of each image file, by host path. */
  readonly staged: ReadonlyMap<string, string>;
  cleanup(succeeded: boolean): Promise<void>;
}

/** Copies one image file, trying the ko location of the agent binary when the classic one is missing. */
export async function copyImageFile(
  images: ImageExtractor,
  file: OscFile,
  destination: string,
  mode: number,
  signal?: AbortSignal,
): Promise<void> {
  const { image, filePathInImage } = file.content.imageRef!;
  try {
    await images.copyFromImage(image, filePathInImage, destination, mode, signal);
  } catch (e) {
    if (!(e instanceof ImageFileNotFoundError) || filePathInImage !== NODE_AGENT_PATH_IN_IMAGE) throw e;
    await images.copyFromImage(image, NODE_AGENT_PATH_IN_KO_IMAGE, destination, mode, signal);
  }
}

async function statOrUndefined(path: string) {
  try {
    return await stat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

interface Target {
  readonly absolute: string;
  readonly field: string;
  readonly write: boolean;
  /** A removal that takes everything below the path with it. */
  readonly recursive?: boolean;
}

function targets(o: PrepareOptions): Target[] {
  const { host } = o;
  const fieldOf = new Map(writtenPaths(o.osc).map((w) => [w.path, w.field]));
  const field = (hostPath: string, fallback: string) => fieldOf.get(hostPath) ?? fallback;
  const unitPath = (unit: string) => `${PATH.systemdUnitDir}/${unit}`;
  return o.pending.flatMap((step): Target[] => {
    switch (step.op) {
      case 'write-file':
        return [{ absolute: host.path(step.path), field: field(step.path, 'spec.files'), write: true }];
      case 'write-unit':
        return [
          {
            absolute: host.unitFile(step.unit),
            field: field(unitPath(step.unit), 'spec.units'),
            write: true,
          },
        ];
      case 'write-drop-in': {
        const path = `${unitPath(step.unit)}.d/${step.dropIn}`;
        return [
          {
            absolute: host.dropInFile(step.unit, step.dropIn),
            field: field(path, 'spec.units'),
            write: true,
          },
        ];
      }
      case 'delete-file':
        return [{ absolute: host.path(step.path), field: `removed file ${step.path}`, write: false }];
      case 'delete-drop-in':
        return [
          {
            absolute: host.dropInFile(step.unit, step.dropIn),
            field: `the drop-in ${step.unit}.d/${step.dropIn}`,
            write: false,
          },
        ];
      case 'remove-drop-in-dir':
        // only the unit's drop-in directory goes here, the unit itself may stay
        return [
          {
            absolute: host.dropInDir(step.unit),
            field: `the drop-in directory ${step.unit}.d`,
            write: false,
            recursive: true,
          },
        ];
      case 'remove-drop-in-dir-if-empty':
        // removes nothing that was written: a directory with a file in it is not empty
        return [
          { absolute: host.dropInDir(step.unit), field: `unit ${step.unit}`, write: false, recursive: false },
        ];
      case 'delete-unit-file':
        return [{ absolute: host.unitFile(step.unit), field: `unit ${step.unit}`, write: false }];
      default:
        return [];
    }
  });
}

/**
 * Writes that a later step of the same plan removes again (the unit removed with its directory).
 * Each write looks up the removals of its own path and of its ancestors (by path, with the index
 * of their step), so the check is linear in the number of steps (times the path depth).
 */
function removedAgain(all: readonly Target[], host: HostRoot): FieldError[] {
  const removals = new Map<string, { index: number; target: Target }[]>();
  all.forEach((t, index) => {
    if (t.write || t.recursive === false) return;
    removals.set(t.absolute, [...(removals.get(t.absolute) ?? []), { index, target: t }]);
  });
  if (removals.size === 0) return [];
  const errors: FieldError[] = [];
  all.forEach((write, i) => {
    if (!write.write) return;
    const hits: { index: number; target: Target }[] = [];
    for (const r of removals.get(write.absolute) ?? []) if (r.index > i) hits.push(r);
    for (let dir = dirname(write.absolute); dir !== dirname(dir); dir = dirname(dir))
      for (const r of removals.get(dir) ?? []) if (r.index > i && r.target.recursive) hits.push(r);
    // in the order of the removals, as the pairwise check reported them
    for (const { target } of hits.sort((a, b) => a.index - b.index))
      errors.push({
        type: 'Invalid',
        field: write.field,
        detail: `${host.hostPathOf(write.absolute)} would be removed again by this apply (${target.field} goes)`,
      });
  });
  return errors;
}

async function treeProblems(o: PrepareOptions): Promise<FieldError[]> {
  const all = targets(o);
  const errors = removedAgain(all, o.host);
  for (const t of all) {
    const outside = await o.host.containmentProblem(t.absolute);
    if (outside) {
      errors.push({ type: 'Forbidden', field: t.field, detail: outside });
      continue;
    }
    if (!t.write) continue;
    const parent = await o.host.nearestExisting(t.absolute);
    if (!(await statOrUndefined(parent))?.isDirectory())
      errors.push({
        type: 'Invalid',
        field: t.field,
        detail: `${o.host.hostPathOf(parent)} is a file on this node, not a directory`,
      });
    const existing = await statOrUndefined(t.absolute);
    if (existing && !existing.isFile())
      errors.push({
        type: 'Invalid',
        field: t.field,
        detail: `${o.host.hostPathOf(t.absolute)} exists on this node and is not a regular file`,
      });
  }
  return errors;
}

/**
 * Removes the staging directories an earlier apply left behind: a kill skips its cleanup, and the
 * apply that resumes it may have no image file left to stage, so this runs on every apply, before
 * it stages anything or finds nothing to do.
 */
export async function removeStaleStaging(host: HostRoot): Promise<void> {
  const scratch = host.path(PATH.nodeAgentTempDir);
  const entries = await readdir(scratch).catch(() => [] as string[]);
  for (const name of entries)
    if (name.startsWith(STAGING_PREFIX)) await rm(join(scratch, name), { recursive: true, force: true });
}

export async function prepareApply(o: PrepareOptions): Promise<Prepared> {
  const problems = await treeProblems(o);
  if (problems.length > 0) throw new ValidationError('OperatingSystemConfig', problems);

  await removeStaleStaging(o.host);
  const pendingWrites = new Set(o.pending.flatMap((s) => (s.op === 'write-file' ? [s.path] : [])));
  const fromImages = o.plan.files.write.filter((f) => f.content.imageRef && pendingWrites.has(f.path));
  const staged = new Map<string, string>();
  if (fromImages.length === 0) return { staged, cleanup: async () => undefined };

  const scratch = o.host.path(PATH.nodeAgentTempDir);
  const created = await ensureDir(scratch, 0o700);
  const dir = join(scratch, `${STAGING_PREFIX}${o.tag.slice(0, 16)}`);
  const cleanup = async (succeeded: boolean) => {
    await rm(dir, { recursive: true, force: true });
    if (succeeded) return;
    for (const d of created.reverse()) await rmdir(d).catch(() => undefined);
  };
  try {
    await mkdir(dir, { mode: 0o700 });
    for (const [i, file] of fromImages.entries()) {
      o.signal?.throwIfAborted();
      const stagedFile = join(dir, String(i));
      await copyImageFile(o.images, file, stagedFile, 0o600, o.signal);
      staged.set(file.path, stagedFile);
    }
    o.logger.info({ files: staged.size }, 'Staged the files taken from images');
  } catch (e) {
    await cleanup(false);
    throw e;
  }
  return { staged, cleanup };
}
