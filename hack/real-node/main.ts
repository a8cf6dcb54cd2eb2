/**
 * `npm run real-node`: one real node of the example shoot's pool, by hand. Starts a shoot API
 * server (hack/envtest), puts into it what gardenlet would (the pool's OSC secret, RBAC, tokens, the
 * Node), boots the node, which runs its provision user data and hands over to the agent under its
 * own systemd, and waits until Ctrl-C; then everything is stopped and removed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { ANNOTATION, sha256Hex } from '../../api/index.js';
import { buildNodeAgent } from '../build-node-agent.js';
import { startEnvtest } from '../landscape/envtest.js';
import { realNodeCache } from './cache.js';
import { provisionNode } from './node-under-test.js';
import { NODE_NAME_PATTERN } from './root-guard.js';
import { reapStaleNodes } from './runs.js';
import { setUpShoot } from './shoot.js';

const USAGE = `usage: npm run real-node -- [--name real-node-NAME]

Boots one real node (systemd as PID 1 of an nspawn container, hack/real-node) against a local shoot
API server and keeps it running until Ctrl-C. Needs root, a Debian host and debootstrap; the first
run builds the node image (minutes). See docs/real-node.md.`;

function say(line: string): void {
  process.stderr.write(`real-node: ${line}\n`);
}

async function main(): Promise<number> {
  let values: { name?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (e) {
    process.stderr.write(`real-node: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const name = values.name ?? `real-node-${Date.now().toString(36)}`;
  if (!NODE_NAME_PATTERN.test(name)) {
    process.stderr.write(`real-node: --name must match ${NODE_NAME_PATTERN}\n${USAGE}\n`);
    return 2;
  }
  process.env.NODE_AGENT_REFUSE_HOST_ROOT = '1';
  reapStaleNodes();
  say('building the node image (cached after the first run)...');
  realNodeCache();
  const buildDir = mkdtempSync(join(tmpdir(), 'real-node-agent-'));
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(buildDir, { recursive: true, force: true })];
  const cleanUp = async () => {
    for (const c of cleanups.reverse()) await c().catch((e: Error) => say(`cleanup: ${e.message}`));
  };
  let stopping = false;
  const stopped = new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.on(signal, () => {
        if (stopping) return;
        stopping = true;
        say(`${signal}: stopping`);
        resolve();
      });
  });
  try {
    const [envtest, build] = await Promise.all([
      startEnvtest({ name: 'real-node' }),
      buildNodeAgent({ outDir: buildDir }),
    ]);
    cleanups.push(() => envtest.stop());
    const shoot = await setUpShoot(envtest);
    cleanups.push(() => shoot.cleanup());
    say(`booting ${name}...`);
    const node = await provisionNode({ name, shoot, envtest, agentBinary: build.binary });
    cleanups.push(() => node.stop());
    const core = envtest.kubeConfig.makeApiClient(CoreV1Api);
    const checksum = sha256Hex(shoot.oscYaml);
    say(`${name} is up (container PID 1 is ${node.container.leader} on this machine)`);
    say(`  a shell inside:      nsenter --target ${node.container.leader} --all --root --wd bash`);
    say(`  the shoot:           KUBECONFIG=${envtest.kubeconfigFile} kubectl get node ${name} -o yaml`);
    say(`  the agent's journal: (inside) journalctl -u gardener-node-agent -f`);
    say('waiting for the agent to report the OSC applied (Ctrl-C stops everything)...');
    const poll = setInterval(async () => {
      const node = await core.readNode({ name }).catch(() => undefined);
      if (node?.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData] === checksum) {
        say(`the agent applied the OSC (checksum ${checksum.slice(0, 12)}); Ctrl-C stops everything`);
        clearInterval(poll);
      }
    }, 1000);
    await stopped;
    clearInterval(poll);
    return 0;
  } finally {
    await cleanUp();
  }
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    say(e.stack ?? e.message);
    process.exit(1);
  },
);
