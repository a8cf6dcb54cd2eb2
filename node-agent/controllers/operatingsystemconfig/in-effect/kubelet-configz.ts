/**
 * The kubelet's configuration as it serves it, `/configz` on its own port (kubernetes v1.34.4
 * pkg/kubelet/server/server.go), against the KubeletConfiguration the OSC renders: flags and
 * defaults included, so a field the kubelet ignored or a file it never read shows. The kubelet
 * authenticates the agent's token with a TokenReview and authorizes `get nodes/configz` (or
 * `nodes/proxy`) with a SubjectAccessReview, both through the shoot API server.
 *
 * The request stays on the node's loopback; the kubelet's serving certificate is not checked
 * (it is issued for the node's name and IP, signed by a CA the OSC does not carry), so the token
 * goes to whatever listens on the kubelet's port, which on a node only root can bind.
 */

import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { type OperatingSystemConfig, parseYaml } from '../../../../api/index.js';
import type { InEffectCheck, Mismatch } from './in-effect-check.js';
import { renderedFieldsDiffer } from './rendered-fields.js';

export const KUBELET_CONFIG_PATH = '/var/lib/kubelet/config/kubelet';
const DEFAULT_KUBELET_PORT = 10250;

/** The rendered KubeletConfiguration of the OSC, or undefined when it renders none. Pure. */
export function renderedKubeletConfig(osc: OperatingSystemConfig): Record<string, unknown> | undefined {
  const inline = osc.spec.files?.find((f) => f.path === KUBELET_CONFIG_PATH)?.content.inline;
  if (!inline) return undefined;
  const text = inline.encoding === 'b64' ? Buffer.from(inline.data, 'base64').toString('utf8') : inline.data;
  return parseYaml(text) as Record<string, unknown>;
}

/**
 * The kubelet refused the agent (401, 403): the shoot grants the agent no `get nodes/configz`.
 * Not a failed apply: the agent cannot tell, so it does not judge (docs/node-agent.md#in-effect).
 */
export class ConfigzNotPermitted extends Error {}

/** GET https://127.0.0.1:<port>/configz with the agent's credentials; the `kubeletconfig` object. */
export type ConfigzFetch = (port: number, signal: AbortSignal) => Promise<Record<string, unknown>>;

/**
 * What the agent shows the kubelet: its token (the kubelet asks the API server with a TokenReview)
 * or its per-node identity's client certificate (the kubelet checks it against its client CA, which
 * signs the API server's client certificates on a Gardener shoot).
 */
export type ConfigzCredentials = () => Promise<{ token: string } | { cert: string; key: string }>;

export function tokenFileCredentials(tokenFile: string): ConfigzCredentials {
  return async () => ({ token: (await readFile(tokenFile, 'utf8')).trim() });
}

/** The client certificate and key of the per-node identity's kubeconfig (credentials/kubeconfig). */
export function identityKubeconfigCredentials(kubeconfigFile: string): ConfigzCredentials {
  return async () => {
    const kubeconfig = parseYaml(await readFile(kubeconfigFile, 'utf8')) as {
      users?: { user?: Record<string, string> }[];
    };
    const user = kubeconfig.users?.[0]?.user ?? {};
    const cert = user['client-certificate-data'];
    const key = user['client-key-data'];
    if (!cert || !key) throw new Error(`${kubeconfigFile} holds no client certificate and key`);
    return {
      cert: Buffer.from(cert, 'base64').toString('utf8'),
      key: Buffer.from(key, 'base64').toString('utf8'),
    };
  };
}

export function configzOverHttps(credentials: string | ConfigzCredentials, timeoutMs = 10_000): ConfigzFetch {
  const credentialsOf = typeof credentials === 'string' ? tokenFileCredentials(credentials) : credentials;
  return async (port, signal) => {
    const shown = await credentialsOf();
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/configz',
          ...('token' in shown
            ? { headers: { authorization: `Bearer ${shown.token}` } }
            : { cert: shown.cert, key: shown.key }),
          rejectUnauthorized: false,
          timeout: timeoutMs,
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (b: Buffer) => chunks.push(b));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 200) resolve(text);
            else
              reject(
                new Error(
                  `the kubelet answered /configz with ${res.statusCode}: ${text.trim().slice(0, 200)}`,
                ),
              );
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`the kubelet did not answer /configz within ${timeoutMs} ms`)),
      );
      req.on('error', reject);
      req.end();
    });
    const parsed = JSON.parse(body) as { kubeletconfig?: Record<string, unknown> };
    if (!parsed.kubeletconfig) throw new Error('the kubelet /configz has no kubeletconfig');
    return parsed.kubeletconfig;
  };
}

export function kubeletConfigzCheck(fetch: ConfigzFetch): InEffectCheck {
  return {
    name: 'kubelet configz',
    async check(osc, signal): Promise<readonly Mismatch[]> {
      const rendered = renderedKubeletConfig(osc);
      if (!rendered) return [];
      const port =
        typeof rendered.port === 'number' && rendered.port > 0 ? rendered.port : DEFAULT_KUBELET_PORT;
      let running: Record<string, unknown>;
      try {
        running = await fetch(port, signal);
      } catch (e) {
        if (e instanceof ConfigzNotPermitted) return [];
        throw e;
      }
      return renderedFieldsDiffer(rendered, running);
    },
  };
}
