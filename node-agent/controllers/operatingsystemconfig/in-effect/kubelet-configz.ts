/**
 * The kubelet's configuration as it serves it, `/configz` (kubernetes v1.34.4
 * pkg/kubelet/server/server.go), against the KubeletConfiguration the OSC renders: flags and
 * defaults included, so a field the kubelet ignored or a file it never read shows. How the agent
 * asks: configz-fetch.ts.
 */
import { type OperatingSystemConfig, parseYaml } from '../../../../api/index.js';
import { type ConfigzFetch, ConfigzNotJudged } from './configz-fetch.js';
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
        if (e instanceof ConfigzNotJudged) return [];
        throw e;
      }
      return renderedFieldsDiffer(rendered, running);
    },
  };
}
