/**
 * What operators expect of both executables (kubectl, helm): `-` for standard input, `-o yaml|json`,
 * `--help` with examples and required options marked, a summary on a terminal, `--output DIR`
 * saying what it wrote, system errors as one line with the documented exit code, each warning once,
 * `--log-level` on every command, bash, zsh and fish completion.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Command } from 'commander';
import { parseYaml, stringifyYaml } from '../../api/index.js';
import { buildProgram } from '../../cli/main.js';
import { DEFAULT_NOW, EXAMPLE_CLUSTER, EXAMPLE_VALUES, render } from '../../cli/render-command.js';
import { buildProgram as buildAgentProgram } from '../../node-agent/cli/program.js';
import { isSystemError, systemErrorLine } from '../../runtime/cli/system-error.js';
import { runCli } from '../node-agent/support/cli-run.js';
import { runMain } from './run-main.js';

const CLI = join(import.meta.dirname, '../../cli/main.ts');
const renderYaml = () =>
  render({ target: 'seed', now: DEFAULT_NOW })
    .objects.map((o) => stringifyYaml(o))
    .join('---\n');

describe('command-line habits', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'habits-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('gardener-osc render', () => {
    it('-o json prints the objects as a v1 List, the same objects as the YAML', async () => {
      const r = await runMain(['render', '-o', 'json']);
      expect(r.code).to.equal(0);
      const list = JSON.parse(r.stdout) as { apiVersion: string; kind: string; items: unknown[] };
      expect([list.apiVersion, list.kind]).to.deep.equal(['v1', 'List']);
      expect(list.items).to.deep.equal(
        renderYaml()
          .split('---\n')
          .map((d) => parseYaml(d)),
      );
    });

    it('--cluster - reads standard input: the same bytes as from the file', async () => {
      const r = await runMain(
        ['render', '--cluster', '-', '--values', EXAMPLE_VALUES],
        readFileSync(EXAMPLE_CLUSTER, 'utf8'),
      );
      expect(r.code).to.equal(0);
      expect(r.stdout).to.equal(renderYaml());
      expect(r.stderr).to.equal('');
    });

    it('on a terminal prints a summary to standard error: objects per kind, pools, bytes', async () => {
      const r = await runMain(['render', '--target', 'shoot'], undefined, { terminal: true });
      expect(r.code).to.equal(0);
      expect(r.stderr).to.equal(
        `gardener-osc: rendered 11 objects (3 Secret, 4 ClusterRoleBinding, 2 ValidatingAdmissionPolicy, 2 ValidatingAdmissionPolicyBinding) for worker pools cpu-worker, gpu-worker, arm-worker, ${Buffer.byteLength(r.stdout)} bytes\n`,
      );
      expect((await runMain(['render', '--target', 'shoot'])).stderr, 'not on a terminal').to.equal('');
      expect(
        (await runMain(['render', '--target', 'shoot', '--log-level', 'warn'], undefined, { terminal: true }))
          .stderr,
        '--log-level warn',
      ).to.equal('');
    });

    it('--output DIR says what it wrote; --output yaml is taken for the format it meant', async () => {
      const out = join(dir, 'out');
      const r = await runMain(['render', '--target', 'shoot', '--output', out]);
      expect(r.code).to.equal(0);
      const files = readdirSync(out)
        .filter((f) => f !== '.gardener-osc-output')
        .sort();
      expect(files).to.have.length(11);
      expect(r.stderr.split('\n').filter(Boolean)).to.deep.equal([
        ...r.stderr
          .split('\n')
          .filter((l) => l.startsWith('gardener-osc: wrote /'))
          .filter((l) => !l.includes(' files to ')),
        `gardener-osc: wrote 11 files to ${out}`,
      ]);
      for (const f of files) expect(r.stderr).to.contain(`gardener-osc: wrote ${join(out, f)}\n`);
      const json = await runMain([
        'render',
        '--target',
        'shoot',
        '--output',
        join(dir, 'json'),
        '-o',
        'json',
      ]);
      expect(
        readdirSync(join(dir, 'json'))
          .filter((f) => f !== '.gardener-osc-output')
          .every((f) => f.endsWith('.json')),
      ).to.equal(true);
      expect(json.code).to.equal(0);
      const meant = await runMain(['render', '--output', 'yaml']);
      expect(meant.code).to.equal(2);
      expect(meant.stderr).to.equal(
        'gardener-osc: --output takes a directory; for the output format use -o yaml (--format yaml)\n',
      );
    });

    it('a --cluster without --values warns once that CA bundles and SSH keys are placeholders', async () => {
      const r = await runMain(['render', '--cluster', EXAMPLE_CLUSTER]);
      expect(r.code).to.equal(0);
      expect(r.stderr).to.match(
        /^gardener-osc: warning: no --values: the CA bundles are placeholders and no SSH keys are rendered[^\n]*\n$/,
      );
      expect(
        (await runMain(['render', '--cluster', EXAMPLE_CLUSTER, '--log-level', 'error'])).stderr,
      ).to.equal('');
    });

    it('typos in the Shoot: a warning with "did you mean", --strict an error; type errors say what they got', async () => {
      const cluster = parseYaml(readFileSync(EXAMPLE_CLUSTER, 'utf8')) as {
        spec: { shoot: { spec: Record<string, Record<string, unknown>> } };
      };
      const spec = cluster.spec.shoot.spec;
      (spec.kubernetes!.kubelet as Record<string, unknown>).maxPod = 120;
      spec.provider!.worker = spec.provider!.workers;
      (spec.kubernetes as Record<string, unknown>).kubeAPIServer = { enableAnonymousAuthentication: false };
      const path = join(dir, 'typo.yaml');
      writeFileSync(path, stringifyYaml(cluster));
      const r = await runMain(['render', '--cluster', path, '--values', EXAMPLE_VALUES]);
      expect(r.code).to.equal(0);
      expect(r.stderr).to.equal(
        [
          `gardener-osc: warning: cluster ${path}: spec.shoot.spec.kubernetes.kubelet.maxPod: unknown field, did you mean "maxPods"? (ignored; --strict rejects it)`,
          `gardener-osc: warning: cluster ${path}: spec.shoot.spec.provider.worker: unknown field, did you mean "workers"? (ignored; --strict rejects it)`,
          '',
        ].join('\n'),
      );
      const strict = await runMain(['render', '--cluster', path, '--values', EXAMPLE_VALUES, '--strict']);
      expect(strict.code).to.equal(2);
      expect(strict.stdout).to.equal('');
      expect(strict.stderr).to.contain(
        'spec.shoot.spec.kubernetes.kubelet.maxPod: Forbidden: unknown field, did you mean "maxPods"?',
      );
      (spec.kubernetes!.kubelet as Record<string, unknown>).maxPods = '120';
      writeFileSync(path, stringifyYaml(cluster));
      const typed = await runMain(['render', '--cluster', path, '--values', EXAMPLE_VALUES]);
      expect(typed.code).to.equal(2);
      expect(typed.stderr).to.contain(
        'spec.shoot.spec.kubernetes.kubelet.maxPods: Invalid value: "120": expected number, got string',
      );
    });
  });

  describe('system errors: one line, exit 1, never a stack', () => {
    it('EEXIST: --output names a file', async () => {
      const file = join(dir, 'file');
      writeFileSync(file, '');
      const r = await runMain(['render', '--output', file]);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.equal(
        `gardener-osc: cannot create the directory ${file}: file already exists (EEXIST)\n`,
      );
    });

    it('ENOENT: apply without --images where there is no ctr says what to pass', async () => {
      const secret = render({ target: 'shoot', now: DEFAULT_NOW }).objects.find(
        (o) => o.kind === 'Secret' && (o.data as Record<string, string> | undefined)?.['osc.yaml'],
      ) as { data: Record<string, string> };
      const osc = join(dir, 'osc.yaml');
      writeFileSync(osc, Buffer.from(secret.data['osc.yaml']!, 'base64'));
      mkdirSync(join(dir, 'root'));
      const r = await runCli(
        ['apply', '--osc', osc, '--root', join(dir, 'root'), '--systemd', `record:${join(dir, 'calls')}`],
        { PATH: join(dir, 'no-programs-here') },
      );
      expect(r.code).to.equal(1);
      expect(r.stderr.trim().split('\n').at(-1)).to.equal(
        "gardener-node-agent: cannot run ctr: no such program on PATH (ENOENT); without --images the agent pulls the OSC's images with containerd's ctr; on a machine without containerd pass --images DIR (files at DIR/<url-encoded image>/<path>)",
      );
    });

    it('EACCES: --output names a directory nobody may write', async () => {
      // sysfs refuses new files even to root, so this holds whoever runs the tests
      const r = await runMain(['crds', '--output', '/sys']);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.match(/^gardener-osc: cannot open \/sys\/[\w.-]+: permission denied \(EACCES\)\n$/);
    });

    it('EADDRINUSE: the controller-manager health port is taken', async function () {
      this.timeout(60_000);
      const server: Server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      try {
        const kubeconfig = join(dir, 'kubeconfig');
        writeFileSync(
          kubeconfig,
          stringifyYaml({
            apiVersion: 'v1',
            kind: 'Config',
            clusters: [
              { name: 'c', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } },
            ],
            users: [{ name: 'u', user: { token: 'x' } }],
            contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
            'current-context': 'c',
          }),
        );
        const config = join(dir, 'config.yaml');
        writeFileSync(
          config,
          stringifyYaml({
            apiVersion: 'node-configuration.gardener.cloud/v1alpha1',
            kind: 'ControllerManagerConfiguration',
            clusterSelector: { matchLabels: { x: 'y' } },
            seedKubeconfig: kubeconfig,
            nodeAgent: { identity: 'serviceAccount' },
            server: { healthProbes: { bindAddress: '127.0.0.1' } },
          }),
        );
        const child = spawnSync(
          process.execPath,
          [
            '--import',
            'tsx',
            CLI,
            'controller-manager',
            '--config',
            config,
            '--health-port',
            String(port),
            '--log-level',
            'error',
          ],
          { encoding: 'utf8', timeout: 50_000 },
        );
        expect(child.status).to.equal(1);
        expect(child.stderr).to.equal(
          `gardener-osc: cannot listen on 127.0.0.1:${port}: address already in use (EADDRINUSE)\n`,
        );
      } finally {
        server.close();
      }
    });

    it('formats what node reports for each kind of system error', async () => {
      const inUse = await new Promise<unknown>((resolve) => {
        const a = createServer().listen(0, '::1', () => {
          const b = createServer();
          b.once('error', (e) => {
            a.close();
            resolve(e);
          });
          b.listen((a.address() as { port: number }).port, '::1');
        });
      });
      expect(isSystemError(inUse)).to.equal(true);
      expect(systemErrorLine(inUse as never)).to.match(
        /^cannot listen on \[::1\]:\d+: address already in use \(EADDRINUSE\)$/,
      );
      let rename: unknown;
      try {
        (await import('node:fs')).renameSync(join(dir, 'a'), join(dir, 'b'));
      } catch (e) {
        rename = e;
      }
      expect(systemErrorLine(rename as never)).to.equal(
        `cannot rename ${join(dir, 'a')} to ${join(dir, 'b')}: no such file or directory (ENOENT)`,
      );
      expect(isSystemError(new Error('x'))).to.equal(false);
    });
  });

  describe('both executables', () => {
    let programs: Record<string, Command>;
    before(async () => {
      programs = { 'gardener-osc': await buildProgram('all'), 'gardener-node-agent': buildAgentProgram() };
    });

    it('every command takes --log-level debug|info|warn|error', () => {
      for (const [name, program] of Object.entries(programs)) {
        for (const command of program.commands) {
          const option = command.options.find((o) => o.long === '--log-level');
          expect(option, `${name} ${command.name()}`).not.to.equal(undefined);
          expect(option!.argChoices, `${name} ${command.name()}`).to.include.members([
            'debug',
            'info',
            'warn',
            'error',
          ]);
        }
      }
    });

    it('--help marks required options and shows examples', async () => {
      const plan = await runMain(['plan', '--help']);
      expect(plan.code).to.equal(0);
      expect(plan.stdout).to.match(/--cluster <file> .*\(required\)/s);
      expect(plan.stdout).to.match(/--next <file> .*\(required\)/s);
      expect(plan.stdout).not.to.match(/--values <file>[^\n]*\(required\)/);
      expect(plan.stdout).to.contain(
        'Examples:\n  gardener-osc plan --cluster cluster.yaml --next cluster-new.yaml',
      );
      for (const command of ['render', 'delays', 'crds', 'controller-manager', 'manifests'])
        expect((await runMain([command, '--help'])).stdout, command).to.contain('Examples:');
      const agent = await runCli(['plan', '--help']);
      expect(agent.stdout).to.match(/--next <file> .*\(required\)/s);
      expect(agent.stdout).to.contain('Examples:');
    });

    it('print bash completion that knows commands, options and choices', () => {
      if (spawnSync('shellcheck', ['--version']).error)
        throw new Error('shellcheck is required to check the bash completion: apt-get install shellcheck');
      for (const name of Object.keys(programs)) {
        const script = join(dir, `${name}.bash`);
        const text = spawnSync(
          process.execPath,
          [
            '--import',
            'tsx',
            name === 'gardener-osc' ? CLI : join(import.meta.dirname, '../../node-agent/cli/main.ts'),
            'completion',
            'bash',
          ],
          { encoding: 'utf8' },
        ).stdout;
        writeFileSync(script, text);
        expect(spawnSync('shellcheck', ['-s', 'bash', script], { encoding: 'utf8' }).stdout, name).to.equal(
          '',
        );
        const complete = (...words: string[]) =>
          spawnSync(
            'bash',
            [
              '-c',
              `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _${name.replace(/-/g, '_')}; printf '%s\\n' "\${COMPREPLY[@]}"`,
            ],
            { encoding: 'utf8' },
          )
            .stdout.split('\n')
            .filter(Boolean);
        expect(complete(name, 'pl'), name).to.deep.equal(['plan']);
        expect(complete(name, 'plan', '-o', ''), name).to.include.members(['text', 'yaml', 'json']);
        expect(complete(name, 'plan', '--exit'), name).to.deep.equal(['--exit-code']);
        expect(complete(name, 'plan', '--next', dir.slice(0, -2)), name).to.include(dir);
      }
    });

    it('bash completion reaches subcommands and their options (rollout status)', () => {
      const script = join(dir, 'osc.bash');
      writeFileSync(
        script,
        spawnSync(process.execPath, ['--import', 'tsx', CLI, 'completion', 'bash'], { encoding: 'utf8' })
          .stdout,
      );
      const complete = (...words: string[]) =>
        spawnSync(
          'bash',
          [
            '-c',
            `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _gardener_osc; printf '%s\\n' "\${COMPREPLY[@]}"`,
          ],
          { encoding: 'utf8' },
        )
          .stdout.split('\n')
          .filter(Boolean);
      expect(complete('gardener-osc', 'rollout', 'st')).to.deep.equal(['status']);
      expect(complete('gardener-osc', 'rollout', 'status', '--f')).to.deep.equal(['--file', '--format']);
      expect(complete('gardener-osc', 'rollout', 'status', '-o', '')).to.deep.equal([
        'table',
        'yaml',
        'json',
      ]);
    });

    it('print fish completion that fish loads, with subcommands, options and choices', () => {
      if (spawnSync('fish', ['--version']).error)
        throw new Error('fish is required to test the fish completion: apt-get install fish');
      for (const name of Object.keys(programs)) {
        const main =
          name === 'gardener-osc' ? CLI : join(import.meta.dirname, '../../node-agent/cli/main.ts');
        const script = join(dir, `${name}.fish`);
        writeFileSync(
          script,
          spawnSync(process.execPath, ['--import', 'tsx', main, 'completion', 'fish'], { encoding: 'utf8' })
            .stdout,
        );
        const syntax = spawnSync('fish', ['-n', script], { encoding: 'utf8' });
        expect(syntax.status, syntax.stderr).to.equal(0);
        const complete = (line: string) =>
          spawnSync('fish', ['--no-config', '-c', `source ${script}; complete -C '${line}'`], {
            encoding: 'utf8',
          })
            .stdout.split('\n')
            .filter(Boolean)
            .map((l) => l.split('\t')[0]);
        expect(complete(`${name} pl`), name).to.deep.equal(['plan']);
        expect(complete(`${name} plan --exit`), name).to.deep.equal(['--exit-code']);
        expect(complete(`${name} completion `), name).to.deep.equal(['bash', 'fish', 'zsh']);
      }
      const osc = (line: string) =>
        spawnSync(
          'fish',
          ['--no-config', '-c', `source ${join(dir, 'gardener-osc.fish')}; complete -C '${line}'`],
          {
            encoding: 'utf8',
          },
        )
          .stdout.split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[0]);
      expect(osc('gardener-osc rollout ')).to.deep.equal(['drift', 'status']);
      expect(osc('gardener-osc rollout status -o ')).to.deep.equal(['json', 'table', 'yaml']);
      expect(osc('gardener-osc render --target ')).to.deep.equal(['seed', 'shoot']);
    });

    it('print zsh completion that zsh loads and binds to the command', () => {
      if (spawnSync('zsh', ['--version']).error)
        throw new Error('zsh is required to test the zsh completion: apt-get install zsh');
      for (const name of Object.keys(programs)) {
        const main =
          name === 'gardener-osc' ? CLI : join(import.meta.dirname, '../../node-agent/cli/main.ts');
        const script = join(dir, `_${name}`);
        writeFileSync(
          script,
          spawnSync(process.execPath, ['--import', 'tsx', main, 'completion', 'zsh'], { encoding: 'utf8' })
            .stdout,
        );
        const syntax = spawnSync('zsh', ['-n', script], { encoding: 'utf8' });
        expect(syntax.status, syntax.stderr).to.equal(0);
        const bound = spawnSync(
          'zsh',
          [
            '-f',
            '-c',
            `autoload -U compinit && compinit -u -D && source ${script} && print -r -- $_comps[${name}]`,
          ],
          {
            encoding: 'utf8',
          },
        );
        expect(bound.stdout.trim(), bound.stderr).to.equal(`_${name.replace(/-/g, '_')}`);
      }
    });
  });
});
