/**
 * Apply time of the node agent's applier against the number of files in an OSC: one apply of N
 * inline files onto an empty root (prepare, persist the plan, write every file atomically, check
 * each off in the progress journal, write last-applied-osc.yaml), next to a baseline measured in
 * the same run: a plain `writeFile` of the same files into the same directory layout, which is
 * what any applier must do at least. Time per 1,000 files that stays flat as N grows is an O(N)
 * apply; before the progress journal it grew with N (the whole plan rewritten after every step).
 * The systemd is the in-memory one, images are not used: only the applier's own cost is measured.
 *
 *   npx tsx hack/bench/apply-files.ts [--sizes 1000,5000,20000] [--quick] > docs/benchmarks/apply-files.out.txt
 *
 * About 4 minutes at the defaults on a loaded 2-core machine; `--quick` (50 files) seconds, the
 * run test/hack/bench/quick-runs.test.ts makes. Steps, in
 * order (main below): build the OSC, baseline writeFile, apply, check the tree, report; each size
 * in a fresh temp root, removed on exit (also on SIGINT/SIGTERM).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type OperatingSystemConfig, PATH, stringifyYaml } from '../../api/index.js';
import { applyOsc } from '../../node-agent/applier/apply-osc.js';
import { DirectoryImageExtractor } from '../../node-agent/registry/directory-extractor.js';
import { MemorySystemd } from '../node-agent-doubles/memory-systemd.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';
import { Cleanups, ms, now, print, progress, thousands } from './support/run.js';

const { values, quick } = benchCommandLine({
  script: 'hack/bench/apply-files.ts',
  duration: 'About 4 minutes at the defaults on a loaded 2-core machine; --quick (50 files) seconds.',
  options: { sizes: { type: 'string', default: '1000,5000,20000', quick: '50' } },
});
const SIZES = values.sizes.split(',').map(Number);
if (SIZES.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--sizes must list positive integers');
/** Files per directory, as a node's files spread over /etc, /opt/bin, /var/lib/... */
const PER_DIR = 100;

const pathOf = (i: number) => `/srv/bench/d${Math.floor(i / PER_DIR)}/f${i}.conf`;
const contentOf = (i: number) => `key-${i} = value ${i}\n`;

function oscWith(n: number): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'bench', namespace: 'shoot--bench--apply' },
    spec: {
      type: 'bench',
      purpose: 'reconcile',
      files: Array.from({ length: n }, (_, i) => ({
        path: pathOf(i),
        permissions: 0o644,
        content: { inline: { encoding: '' as const, data: contentOf(i) } },
      })),
      units: [
        {
          name: 'bench.service',
          enable: true,
          command: 'start',
          content: '[Service]\nExecStart=/bin/true\n',
        },
      ],
    },
  } as OperatingSystemConfig;
}

async function baseline(root: string, n: number): Promise<number> {
  const start = now();
  let made = '';
  for (let i = 0; i < n; i++) {
    const path = join(root, pathOf(i));
    if (dirname(path) !== made) {
      await mkdir(dirname(path), { recursive: true });
      made = dirname(path);
    }
    await writeFile(path, contentOf(i), { mode: 0o644 });
  }
  return now() - start;
}

interface Applied {
  readonly ms: number;
  readonly steps: number;
  /** Bytes of apply-progress.yaml and its journal right before they are removed. */
  readonly progressBytes: number;
}

async function apply(root: string, osc: OperatingSystemConfig, images: string): Promise<Applied> {
  const oscText = stringifyYaml(osc);
  let progressBytes = 0;
  const start = now();
  const result = await applyOsc({
    root,
    oscText,
    systemd: new MemorySystemd(),
    images: new DirectoryImageExtractor(images),
    onNodeAgentRestart: 'continue',
    crashPoint: (where) => {
      if (where !== 'last-applied') return;
      const dir = join(root, PATH.nodeAgentBaseDir);
      for (const name of readdirSync(dir))
        if (name.startsWith('apply-progress')) progressBytes += statSync(join(dir, name)).size;
    },
  });
  return { ms: now() - start, steps: result.stepsRun, progressBytes };
}

function checkTree(root: string, n: number): void {
  for (const i of [0, Math.floor(n / 2), n - 1]) {
    const s = statSync(join(root, pathOf(i)));
    if (!s.isFile() || (s.mode & 0o7777) !== 0o644) throw new Error(`${pathOf(i)} was not applied`);
  }
}

async function main(): Promise<void> {
  const cleanups = new Cleanups();
  const work = mkdtempSync(join(tmpdir(), 'bench-apply-files-'));
  cleanups.push('remove the temp roots', () => rmSync(work, { recursive: true, force: true }));
  const images = join(work, 'images');
  mkdirSync(images);
  const rows: string[] = [];
  try {
    for (const n of SIZES) {
      progress(`${thousands(n)} files: build the OSC`);
      const osc = oscWith(n);
      progress(`${thousands(n)} files: baseline writeFile`);
      const base = await baseline(join(work, `baseline-${n}`), n);
      rmSync(join(work, `baseline-${n}`), { recursive: true, force: true });
      progress(`${thousands(n)} files: apply`);
      const root = join(work, `root-${n}`);
      mkdirSync(root);
      const applied = await apply(root, osc, images);
      progress(`${thousands(n)} files: check the tree`);
      checkTree(root, n);
      rmSync(root, { recursive: true, force: true });
      const per1k = (x: number) => (x / n) * 1000;
      rows.push(
        `${thousands(n)} | ${applied.steps} | ${ms(applied.ms / 1000)} | ${ms(per1k(applied.ms))} | ${ms(per1k(base))} | ${(applied.ms / base).toFixed(1)}x | ${thousands(Math.round(applied.progressBytes / 1024))}`,
      );
      progress(`${thousands(n)} files: apply ${ms(applied.ms / 1000)} s, baseline ${ms(base / 1000)} s`);
    }
  } finally {
    await cleanups.run();
  }
  print(
    `# apply-files benchmark, ${new Date().toISOString()}, node ${process.version}, ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (quick) print(QUICK_NOTICE);
  print(
    'files | steps | apply s | apply ms per 1,000 files | baseline writeFile ms per 1,000 files | apply / baseline | progress KiB',
  );
  for (const row of rows) print(row);
}

await main();
