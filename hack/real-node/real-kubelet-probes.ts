/** The real kubelet of a real node, read from outside and changed as gardenlet would. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { OperatingSystemConfig } from '../../api/index.js';
import type { Envtest } from '../landscape/envtest.js';
import { overrideKubeletConfig } from '../real-kubelet/cgroup-controllers.js';
import type { Container } from './container.js';
import { editFile } from './osc-edits.js';

export const KUBELET_CONFIG = '/var/lib/kubelet/config/kubelet';

/** The OSC with `fields` set over its KubeletConfiguration; the same OSC when there are none. */
export function withKubeletFields(
  osc: OperatingSystemConfig,
  fields: Readonly<Record<string, unknown>>,
): OperatingSystemConfig {
  if (Object.keys(fields).length === 0) return osc;
  return editFile(osc, KUBELET_CONFIG, (c) => overrideKubeletConfig(c, fields));
}

/**
 * The kubelet's configuration as it serves it (`/configz` on its port 10250, authenticated and
 * authorized through the shoot API server with the environment's admin token), read by this
 * machine's curl in the node's network namespace only (the node's port is on its own loopback).
 */
export async function kubeletConfigz(c: Container, env: Envtest): Promise<Record<string, unknown>> {
  const token = env.kubeConfig.getCurrentUser()?.token;
  if (!token) throw new Error(`${env.name}: no bearer token to read configz with`);
  // asynchronous: the node reaches the API server through a proxy in this very process
  // (api-proxy.ts), which a blocking call would stall while the kubelet asks it to authorize us
  const { stdout: out } = await promisify(execFile)(
    'nsenter',
    [
      ...['--target', String(c.leader), '--net', '--', 'curl', '-sSfk', '--max-time', '20'],
      ...['-H', `Authorization: Bearer ${token}`, 'https://127.0.0.1:10250/configz'],
    ],
    { encoding: 'utf8' },
  );
  return (JSON.parse(out) as { kubeletconfig: Record<string, unknown> }).kubeletconfig;
}
