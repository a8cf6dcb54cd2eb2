/** What a pool's OSC renders for the kubelet and the kernel, as the real-kubelet tests read it. */
import type { OperatingSystemConfig } from '../../api/index.js';

function inlineFiles(osc: OperatingSystemConfig): { path: string; text: string }[] {
  return (osc.spec.files ?? []).flatMap((f) => {
    const inline = f.content.inline;
    if (!inline) return [];
    const text =
      inline.encoding === 'b64' ? Buffer.from(inline.data, 'base64').toString('utf8') : inline.data;
    return [{ path: f.path, text }];
  });
}

/** The sysctl keys of the OSC's /etc/sysctl.d files, as written (dots or slashes). */
export function oscSysctlKeys(osc: OperatingSystemConfig): string[] {
  return inlineFiles(osc)
    .filter((f) => f.path.startsWith('/etc/sysctl.d/'))
    .flatMap((f) => f.text.split('\n'))
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !l.startsWith(';') && l.includes('='))
    .map((l) => l.slice(0, l.indexOf('=')).trim().replace(/^-/, ''));
}

/**
 * The pause image the OSC's containerd configuration names: init-containerd's PAUSE_IMAGE (v1.91),
 * `criConfig.containerd.sandboxImage` (v1.150, written into config.toml by the agent).
 */
export function pauseImagesOf(osc: OperatingSystemConfig): string[] {
  const images = new Set<string>();
  const sandboxImage = osc.spec.criConfig?.containerd?.sandboxImage;
  if (sandboxImage) images.add(sandboxImage);
  for (const f of inlineFiles(osc))
    for (const m of f.text.matchAll(/^export PAUSE_IMAGE=['"]?([^'"\s]+)['"]?$/gm)) images.add(m[1]!);
  return [...images];
}

/** The labels of the kubelet's `--node-labels` flags in the OSC's kubelet.service. */
export function renderedNodeLabels(osc: OperatingSystemConfig): Record<string, string> {
  const unit = (osc.spec.units ?? []).find((u) => u.name === 'kubelet.service')?.content ?? '';
  const labels: Record<string, string> = {};
  for (const m of unit.matchAll(/--node-labels=([^\s\\]+)/g))
    for (const pair of m[1]!.split(',')) {
      const [k, v] = pair.split('=');
      labels[k!] = v ?? '';
    }
  return labels;
}
