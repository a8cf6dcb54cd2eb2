/**
 * The files a Plan writes and removes, as the plan shows them: decoded (base64 is for transport),
 * as a unified diff, modes in octal, secrets redacted to byte counts, image files by image.
 */
import { type OperatingSystemConfig, type OscFile, sha256Hex } from '../../api/index.js';
import { inlineBytes } from '../applier/file-content.js';
import { collectAllFiles } from '../planner/collect-files.js';
import { fileModeOf } from '../planner/file-mode.js';
import type { Plan } from '../planner/plan.js';
import { redactionReason } from './redaction.js';
import { unifiedDiff } from './unified-diff.js';
import { summarizeTextChange } from './value-summary.js';
import type { FileView } from './view.js';

type Content =
  | { readonly kind: 'text'; readonly text: string; readonly bytes: number }
  | { readonly kind: 'binary'; readonly bytes: number; readonly sha256: string }
  | { readonly kind: 'image'; readonly ref: string }
  | { readonly kind: 'undecodable'; readonly problem: string };

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function contentOf(file: OscFile): Content {
  const { inline, imageRef } = file.content;
  if (imageRef) return { kind: 'image', ref: `${imageRef.image} ${imageRef.filePathInImage}` };
  if (!inline) return { kind: 'undecodable', problem: 'no inline content or image' };
  let bytes: Buffer;
  try {
    bytes = inlineBytes(inline);
  } catch (e) {
    return { kind: 'undecodable', problem: (e as Error).message };
  }
  try {
    const text = UTF8.decode(bytes);
    if (!text.includes('\0')) return { kind: 'text', text, bytes: bytes.length };
  } catch {
    // not UTF-8: binary
  }
  return { kind: 'binary', bytes: bytes.length, sha256: sha256Hex(bytes) };
}

export const octal = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');

const sizeOf = (c: Content | undefined): number | undefined =>
  c?.kind === 'text' || c?.kind === 'binary' ? c.bytes : undefined;
const imageOf = (c: Content | undefined): string | undefined => (c?.kind === 'image' ? c.ref : undefined);

/** `repo:v1 → v2` when only the tag changes, else both in full. */
function imageChange(from: string, to: string): string {
  const [fromImage, fromPath] = from.split(' ');
  const [toImage, toPath] = to.split(' ');
  const repo = (image: string) => image.replace(/[:@][^/:@]*$/, '');
  if (fromPath === toPath && repo(fromImage!) === repo(toImage!))
    return `image ${fromImage} → ${toImage!.slice(repo(toImage!).length + 1)}`;
  return `image ${from} → ${to}`;
}

function contentSummary(before: Content, after: Content, redacted: string | undefined): string | undefined {
  if (before.kind === 'image' && after.kind === 'image')
    return before.ref === after.ref ? undefined : imageChange(before.ref, after.ref);
  if (before.kind === 'text' && after.kind === 'text' && before.text === after.text) return undefined;
  if (before.kind === 'binary' && after.kind === 'binary' && before.sha256 === after.sha256) return undefined;
  if (after.kind === 'undecodable') return `content cannot be decoded: ${after.problem}`;
  const size = (c: Content) => (c.kind === 'image' ? `image ${c.ref}` : `${sizeOf(c) ?? '?'} bytes`);
  if (redacted) return `content redacted, ${size(before)} → ${size(after)}`;
  if (before.kind === 'text' && after.kind === 'text') return summarizeTextChange(before.text, after.text);
  return `${before.kind === 'binary' || after.kind === 'binary' ? 'binary, ' : ''}${size(before)} → ${size(after)}`;
}

function fileView(path: string, old: OscFile | undefined, next: OscFile | undefined): FileView {
  const before = old && contentOf(old);
  const after = next && contentOf(next);
  const text = (c: Content | undefined) => (c?.kind === 'text' ? c.text : undefined);
  const redacted = redactionReason(path, [text(before), text(after)]);
  const change = !old ? 'added' : !next ? 'removed' : 'changed';
  const modeFrom = old && octal(fileModeOf(old));
  const modeTo = next && octal(fileModeOf(next));
  const parts: string[] = [];
  if (change === 'added')
    parts.push(after?.kind === 'image' ? `new file from image ${after.ref}` : 'new file');
  else if (change === 'removed') parts.push('removed');
  else {
    const content = contentSummary(before!, after!, redacted);
    if (content) parts.push(content);
    if (modeFrom !== modeTo) parts.push(`mode ${modeFrom} → ${modeTo}`);
    if (parts.length === 0) parts.push('rewritten, unchanged');
  }
  const showDiff =
    !redacted &&
    (before === undefined || before.kind === 'text') &&
    (after === undefined || after.kind === 'text');
  const diff = showDiff ? unifiedDiff(path, text(before), text(after)) : '';
  const bytes = { from: sizeOf(before), to: sizeOf(after) };
  const image = { from: imageOf(before), to: imageOf(after) };
  return {
    path,
    change,
    mode: { ...(modeFrom ? { from: modeFrom } : {}), ...(modeTo ? { to: modeTo } : {}) },
    ...(bytes.from !== undefined || bytes.to !== undefined ? { bytes: defined(bytes) } : {}),
    ...(image.from !== undefined || image.to !== undefined ? { image: defined(image) } : {}),
    ...(redacted ? { redacted } : {}),
    ...(before?.kind === 'binary' || after?.kind === 'binary' ? { binary: true } : {}),
    summary: parts.join(', '),
    diff: diff === '' ? null : diff,
  };
}

/** The fields that are set: JSON drops undefined, YAML would not. */
export function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Written files in plan order, then removed ones. */
export function fileViews(previous: OperatingSystemConfig | undefined, plan: Plan): FileView[] {
  const old = new Map((previous ? collectAllFiles(previous) : []).map((f) => [f.path, f]));
  return [
    ...plan.files.write.map((f) => fileView(f.path, old.get(f.path), f)),
    ...plan.files.delete.map((path) => fileView(path, old.get(path), undefined)),
  ];
}
