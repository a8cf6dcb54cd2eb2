/**
 * A throwaway root filesystem for `systemd-analyze verify --root R`: the applied OSC plus just
 * enough of an operating system around it that every finding systemd-analyze prints is about the
 * rendered units, so its output is checked unfiltered (any byte on stdout or stderr is a finding).
 *
 * R holds:
 * - the applied OSC: unit contents at R/etc/systemd/system/<name>, drop-ins at
 *   R/etc/systemd/system/<name>.d/<dropin>, inline files decoded at R/<path> with their exact mode,
 *   imageRef files as executable stub scripts (mode from the OSC), secretRef files empty;
 * - this host's distribution unit tree (/usr/lib/systemd/system, and /lib/systemd/system when /lib
 *   is not merged into /usr), so multi-user.target, network-online.target, sysinit.target,
 *   systemd-sysctl.service, ... resolve as they do on a node. It is copied once per verifier into a
 *   template and hard-linked into each R (R's own directory entries, nothing points out of R; what
 *   the harness writes replaces an entry, never writes through a link).
 *   Relative symlinks (aliases, .wants) stay symlinks inside R; masks (symlinks to /dev/null) become
 *   empty files, which systemd reads as masked too. The host's /etc/systemd is not copied;
 * - stub base units, in R/usr/lib/systemd/system where the OS would put them, for every unit the
 *   OSC names or references (dependencies, [Install], drop-ins only) that neither the OSC nor the
 *   distribution tree has, e.g. containerd.service, docker.service, docker.socket, sshd.service,
 *   clean-ca-certificates.service;
 * - every absolute executable the verified units run (ExecStart=, ExecStartPre=, ... without the
 *   `-@+!:|` prefixes) that the OSC does not write: copied from this host when it has it (e.g.
 *   /bin/sh, /lib/systemd/systemd-sysctl), otherwise an executable stub script (e.g.
 *   /usr/sbin/logrotate, /usr/bin/docker, /var/lib/kubelet/copy-kubernetes-binary.sh).
 *
 * Nothing else is needed: `EnvironmentFile=`, `Condition*=` paths and mount sources are only read
 * when a unit starts, which verify never does. The files belong to whoever runs the tests, who
 * plays root (verify checks executability with access(2)). systemd is never booted; only
 * `systemd-analyze` runs, and only with `--root R`.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import type { OscFile, OscUnit } from '../../api/index.js';

export const SYSTEMD_ANALYZE_INSTALL_HINT =
  'apt-get update && apt-get install -y systemd (only its systemd-analyze is used; never start systemd)';

/** The unit trees a distribution ships; the first one is where stub base units go. */
const DISTRIBUTION_UNIT_DIRS = ['/usr/lib/systemd/system', '/lib/systemd/system'] as const;
/** Where systemd (system scope) looks for unit files below the root, highest priority first. */
const UNIT_SEARCH_DIRS = ['/etc/systemd/system', '/usr/local/lib/systemd/system', ...DISTRIBUTION_UNIT_DIRS];
const OSC_UNIT_DIR = '/etc/systemd/system';
/** A unit file's name (not a `.wants`/`.requires` directory) below /etc/systemd/system. */
const UNIT_NAME = /^[^/]+\.(service|socket|target|mount|automount|swap|timer|path|slice)$/;

export const STUB_SCRIPT = '#!/bin/sh\nexit 0\n';
/** What a node writes for a file without permissions (gardener-node-agent: 0644). */
const DEFAULT_FILE_MODE = 0o644;

export interface VerifyInput {
  readonly units?: readonly OscUnit[];
  readonly files?: readonly OscFile[];
}

/** What the harness put into R besides the OSC and the distribution tree; shown on failure. */
export type Provenance = 'stub unit' | 'host copy' | 'stub executable';

export interface VerifyRoot {
  readonly root: string;
  /** The unit names verify checks: every unit the OSC names or writes a unit file or drop-in for. */
  readonly units: readonly string[];
  /** Absolute paths (inside root) of the unit files passed to `systemd-analyze verify`. */
  readonly unitFiles: readonly string[];
  /** Path inside R (without the leading slash) -> how the harness provided it. */
  readonly provenance: ReadonlyMap<string, Provenance>;
}

export interface VerifyResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout then stderr, unfiltered (empty when clean). */
  readonly output: string;
}

export type VerifyOutcome = VerifyResult & { readonly root: VerifyRoot };

const inRoot = (root: string, path: string) => join(root, path);

function writeExact(path: string, content: string | Buffer, mode: number): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  rmSync(path, { force: true }); // a new inode: never write through a hard link into the template
  writeFileSync(path, content);
  chmodSync(path, mode); // the exact mode, whatever the umask
}

/** Copies a distribution unit directory, keeping the copy self-contained (see the file comment). */
function copyUnitTree(hostDir: string, targetDir: string): void {
  const walk = (from: string, to: string) => {
    mkdirSync(to, { recursive: true, mode: 0o755 });
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const source = join(from, entry.name);
      const target = join(to, entry.name);
      if (entry.isDirectory()) {
        walk(source, target);
      } else if (entry.isSymbolicLink()) {
        const link = readlinkSync(source);
        if (link === '/dev/null') writeExact(target, '', 0o644);
        else if (!link.startsWith('/') && resolve(from, link).startsWith(`${hostDir}/`))
          symlinkSync(link, target);
        else if (existsSync(source) && statSync(source).isFile())
          writeExact(target, readFileSync(source), 0o644);
        // else: dangling, or pointing out of the tree at something that is not a file: left out
      } else if (entry.isFile()) {
        copyFileSync(source, target);
        chmodSync(target, statSync(source).mode & 0o7777);
      }
    }
  };
  walk(hostDir, targetDir);
}

/** Copies this host's distribution unit tree(s) below `root`, at the same paths. */
export function copyDistributionUnits(root: string): void {
  const copied = new Set<string>();
  for (const dir of DISTRIBUTION_UNIT_DIRS) {
    if (!existsSync(dir)) continue;
    const real = realpathSync(dir);
    if (copied.has(real)) continue; // merged /usr: /lib/systemd/system is /usr/lib/systemd/system
    copied.add(real);
    copyUnitTree(real, inRoot(root, dir));
  }
}

/**
 * Recreates `template` (a tree copyDistributionUnits made) at `root` with hard links: a link per
 * file instead of a copy. Falls back to copying when linking is not possible.
 */
function linkTree(template: string, root: string): void {
  mkdirSync(root, { recursive: true, mode: 0o755 });
  for (const entry of readdirSync(template, { withFileTypes: true })) {
    const source = join(template, entry.name);
    const target = join(root, entry.name);
    if (entry.isDirectory()) linkTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
      }
    }
  }
}

/** Writes the OSC as a node applies it: units, drop-ins, files with their modes. */
function applyOsc(root: string, input: VerifyInput): void {
  for (const unit of input.units ?? []) {
    if (unit.content !== undefined)
      writeExact(inRoot(root, join(OSC_UNIT_DIR, unit.name)), unit.content, 0o644);
    for (const dropIn of unit.dropIns ?? [])
      writeExact(inRoot(root, join(OSC_UNIT_DIR, `${unit.name}.d`, dropIn.name)), dropIn.content, 0o644);
  }
  for (const file of input.files ?? []) {
    const { inline, imageRef, secretRef } = file.content;
    let content: string | Buffer;
    if (inline) content = inline.encoding === 'b64' ? Buffer.from(inline.data, 'base64') : inline.data;
    else if (imageRef)
      content = STUB_SCRIPT; // the node extracts filePathInImage from the image
    else if (secretRef)
      content = ''; // the OS extension fills it from the secret
    else throw new Error(`${file.path}: no inline, imageRef or secretRef content`);
    writeExact(inRoot(root, file.path), content, file.permissions ?? DEFAULT_FILE_MODE);
  }
}

/** The unit names the OSC defines or configures: its units, and files below /etc/systemd/system. */
function oscUnitNames(input: VerifyInput): string[] {
  const names = new Set<string>();
  for (const unit of input.units ?? []) names.add(unit.name);
  for (const file of input.files ?? []) {
    if (!file.path.startsWith(`${OSC_UNIT_DIR}/`)) continue;
    const [first = ''] = file.path.slice(OSC_UNIT_DIR.length + 1).split('/');
    const name = first.endsWith('.d') ? first.slice(0, -2) : first; // a unit file or a drop-in
    if (UNIT_NAME.test(name)) names.add(name);
  }
  return [...names];
}

/** The unit file systemd would load for `name` in R (the template for an instance), if any. */
function findUnitFile(root: string, name: string): string | undefined {
  const template = name.replace(/@[^.]+\./, '@.');
  for (const candidate of template === name ? [name] : [name, template]) {
    for (const dir of UNIT_SEARCH_DIRS) {
      const path = inRoot(root, join(dir, candidate));
      if (existsSync(path)) return path;
    }
  }
  return undefined;
}

/** The drop-in files of `name` in R, in no particular order (they are only scanned). */
function dropInFiles(root: string, name: string): string[] {
  const files: string[] = [];
  for (const dir of UNIT_SEARCH_DIRS) {
    const dropInDir = inRoot(root, join(dir, `${name}.d`));
    if (!existsSync(dropInDir)) continue;
    for (const entry of readdirSync(dropInDir))
      if (entry.endsWith('.conf')) files.push(join(dropInDir, entry));
  }
  return files;
}

interface Assignment {
  readonly section: string;
  readonly key: string;
  readonly value: string;
}

/** `key=value` assignments of a unit file with their section, continuation lines joined. */
function assignments(text: string): Assignment[] {
  const out: Assignment[] = [];
  let section = '';
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]?.trim() ?? '';
    while (line.endsWith('\\') && i + 1 < lines.length)
      line = `${line.slice(0, -1)} ${lines[++i]?.trim() ?? ''}`;
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      section = line.slice(1, -1);
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) out.push({ section, key: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() });
  }
  return out;
}

const DEPENDENCY_KEYS = new Set([
  'Wants',
  'Requires',
  'Requisite',
  'BindsTo',
  'PartOf',
  'Upholds',
  'Conflicts',
  'Before',
  'After',
  'OnFailure',
  'OnSuccess',
  'PropagatesReloadTo',
  'ReloadPropagatedFrom',
  'PropagatesStopTo',
  'StopPropagatedFrom',
  'JoinsNamespaceOf',
  'WantedBy',
  'RequiredBy',
  'UpheldBy',
  'Also',
]);
const EXEC_KEYS = new Set([
  'ExecCondition',
  'ExecStartPre',
  'ExecStart',
  'ExecStartPost',
  'ExecReload',
  'ExecStop',
  'ExecStopPost',
]);

/** Unit names a unit file refers to (device units are synthesised by systemd, never files). */
function referencedUnits(text: string): string[] {
  const names: string[] = [];
  for (const { section, key, value } of assignments(text)) {
    const isDependency = DEPENDENCY_KEYS.has(key);
    const isTrigger = (section === 'Timer' || section === 'Path') && key === 'Unit';
    const isSocketService = section === 'Socket' && key === 'Service';
    if (!isDependency && !isTrigger && !isSocketService) continue;
    for (const name of value.split(/\s+/)) if (name && !name.endsWith('.device')) names.push(name);
  }
  return names;
}

/** Absolute executables a unit file runs: the first word of each Exec*= line, prefixes stripped. */
function executables(text: string): string[] {
  const paths: string[] = [];
  for (const { key, value } of assignments(text)) {
    if (!EXEC_KEYS.has(key)) continue;
    const first = value.replace(/^[-@+!:|]+/, '').split(/\s+/)[0] ?? '';
    const unquoted = first.replace(/^"(.*)"$/, '$1');
    if (unquoted.startsWith('/')) paths.push(unquoted);
  }
  return paths;
}

/** A minimal valid unit of the type its suffix names, standing in for one the OS provides. */
function stubUnit(name: string): string {
  // DefaultDependencies=no: the real unit's dependencies are unknown here, and invented ones make
  // false findings (a default-dependency stub of clean-ca-certificates.service is ordered after
  // sysinit.target, which updatecacerts.service runs before: an ordering cycle no node has).
  const header = `# stub of an OS-provided unit (test/support/systemd-verify-root.ts)\n[Unit]\nDescription=stub ${name}\nDefaultDependencies=no\n`;
  const stem = name.slice(0, name.lastIndexOf('.'));
  if (name.endsWith('.service')) return `${header}[Service]\nExecStart=/bin/true\n`;
  if (name.endsWith('.socket')) return `${header}[Socket]\nListenStream=/run/${stem}.sock\n`;
  if (name.endsWith('.timer')) return `${header}[Timer]\nOnActiveSec=1h\n`;
  if (name.endsWith('.path')) return `${header}[Path]\nPathExists=/run/${stem}\n`;
  if (name.endsWith('.mount')) {
    const unescaped = stem
      .replaceAll('-', '/')
      .replace(/\\x([0-9a-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return `${header}[Mount]\nWhat=tmpfs\nWhere=${stem === '-' ? '/' : `/${unescaped}`}\nType=tmpfs\n`;
  }
  return header; // target, slice: nothing else needed
}

function ensureStubUnit(root: string, name: string, provenance: Map<string, Provenance>): void {
  if (findUnitFile(root, name)) return;
  const path = inRoot(root, join(DISTRIBUTION_UNIT_DIRS[0], name));
  writeExact(path, stubUnit(name), 0o644);
  provenance.set(relative(root, path), 'stub unit');
  // a socket activates the service of the same name, a timer or path unit the unit of the same name
  const stem = name.slice(0, name.lastIndexOf('.'));
  if (/\.(socket|timer|path)$/.test(name)) ensureStubUnit(root, `${stem}.service`, provenance);
}

/** Where an executable comes from; `cache` keeps one copy of each host file for many roots. */
function ensureExecutable(
  root: string,
  path: string,
  provenance: Map<string, Provenance>,
  cache?: string,
): void {
  const target = inRoot(root, path);
  if (existsSync(target)) return; // written by the OSC, or provided already
  let onHost = false;
  try {
    const st = statSync(path); // follows symlinks: /bin/sh is dash on Debian
    onHost = st.isFile() && (st.mode & 0o111) !== 0;
  } catch {
    onHost = false;
  }
  if (!onHost) {
    writeExact(target, STUB_SCRIPT, 0o755);
    provenance.set(path.slice(1), 'stub executable');
    return;
  }
  const copy = (to: string) => {
    mkdirSync(dirname(to), { recursive: true, mode: 0o755 });
    copyFileSync(path, to);
    chmodSync(to, statSync(path).mode & 0o7777);
  };
  if (cache) {
    const cached = inRoot(cache, path);
    if (!existsSync(cached)) copy(cached);
    mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
    try {
      linkSync(cached, target);
    } catch {
      copyFileSync(cached, target);
    }
  } else {
    copy(target);
  }
  provenance.set(path.slice(1), 'host copy');
}

export interface BuildOptions {
  /** A directory copyDistributionUnits filled, hard-linked into R; without it the host's tree is copied. */
  readonly distribution?: string;
  /** A directory that keeps the host executables copied so far, hard-linked into R. */
  readonly hostCopies?: string;
}

/** Builds R (an empty or missing directory) for the given OSC units and files. */
export function buildVerifyRoot(root: string, input: VerifyInput, options: BuildOptions = {}): VerifyRoot {
  const { distribution, hostCopies } = options;
  if (existsSync(root) && readdirSync(root).length > 0) throw new Error(`${root} is not empty`);
  mkdirSync(root, { recursive: true, mode: 0o755 });
  if (distribution) linkTree(distribution, root);
  else copyDistributionUnits(root);
  applyOsc(root, input);
  const provenance = new Map<string, Provenance>();
  const units = oscUnitNames(input);
  for (const name of units) ensureStubUnit(root, name, provenance);

  // What systemd parses for the verified units: base file (OSC, distribution or stub) and drop-ins.
  const texts = units.flatMap((name) =>
    [findUnitFile(root, name), ...dropInFiles(root, name)]
      .filter((p): p is string => p !== undefined)
      .map((p) => readFileSync(p, 'utf8')),
  );
  for (const text of texts) for (const name of referencedUnits(text)) ensureStubUnit(root, name, provenance);
  // verify checks the executables of the units it is given, not those of the dependencies it loads
  for (const text of texts)
    for (const path of executables(text)) ensureExecutable(root, path, provenance, hostCopies);

  const unitFiles = units.map((name) => {
    const file = findUnitFile(root, name);
    if (!file) throw new Error(`no unit file for ${name} in ${root}`);
    return file;
  });
  return { root, units, unitFiles, provenance };
}

/** `systemd-analyze verify --man=no --generators=no --root R <unit files>`, output unfiltered. */
export function systemdAnalyzeVerify(root: VerifyRoot, command = 'systemd-analyze'): VerifyResult {
  if (!root.root.startsWith('/') || resolve(root.root) === '/')
    throw new Error(
      `refusing to verify against root ${JSON.stringify(root.root)}: it must be a temp directory`,
    );
  if (root.unitFiles.length === 0) throw new Error('no unit files to verify');
  // A clean environment: SYSTEMD_UNIT_PATH, SYSTEMD_LOG_LEVEL, ... of the caller would change what
  // verify loads or prints.
  const env = { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' };
  const run = spawnSync(
    command,
    ['verify', '--man=no', '--generators=no', `--root=${root.root}`, ...root.unitFiles],
    { encoding: 'utf8', env, timeout: 60_000 },
  );
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT')
    throw new Error(`${command} is not installed; install it with: ${SYSTEMD_ANALYZE_INSTALL_HINT}`);
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, output: run.stdout + run.stderr };
}

export interface SystemdVerifier {
  /** Builds a fresh R for `input`, verifies its units, removes R (kept when KEEP_VERIFY_ROOT=1). */
  verify(input: VerifyInput): VerifyOutcome;
  /** Removes the temp directory of this verifier. */
  dispose(): void;
}

/**
 * One temp directory per test suite: the distribution unit tree and the host executables are
 * copied into it once, and each verify builds its own R next to it from hard links.
 */
export function createSystemdVerifier(command = 'systemd-analyze'): SystemdVerifier {
  const base = mkdtempSync(join(tmpdir(), 'systemd-verify-'));
  const keep = process.env.KEEP_VERIFY_ROOT === '1';
  const distribution = join(base, 'distribution');
  const hostCopies = join(base, 'host');
  copyDistributionUnits(distribution);
  let count = 0;
  return {
    verify(input) {
      const dir = join(base, `root-${++count}`);
      try {
        const root = buildVerifyRoot(dir, input, { distribution, hostCopies });
        return { ...systemdAnalyzeVerify(root, command), root };
      } finally {
        if (keep) process.stderr.write(`kept verify root ${dir}\n`);
        else rmSync(dir, { recursive: true, force: true });
      }
    },
    dispose() {
      if (!keep) rmSync(base, { recursive: true, force: true });
    },
  };
}

/** A failing test's message: the findings, and what the harness stubbed or copied into R. */
export function describeVerify(result: VerifyOutcome): string {
  const provided = [...result.root.provenance].map(([path, how]) => `  /${path}: ${how}`).join('\n');
  return `systemd-analyze verify (exit ${result.status}) of ${result.root.units.join(', ')}:\n${result.output}\nprovided by the harness:\n${provided}`;
}
