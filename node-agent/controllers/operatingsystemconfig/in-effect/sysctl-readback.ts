/**
 * Kernel tunables the OSC renders (`/etc/sysctl.d/*.conf`), read back from `/proc/sys` after the
 * apply: systemd-sysctl applies them, and a key it could not write (read-only, out of range) keeps
 * another value. A key this kernel does not have is not compared (systemd-sysctl skips it too).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OperatingSystemConfig } from '../../../../api/index.js';
import type { InEffectCheck, Mismatch } from './in-effect-check.js';

/** `key = value` lines of the OSC's sysctl.d files, later files and lines winning. Pure. */
export function renderedSysctls(osc: OperatingSystemConfig): Map<string, string> {
  const values = new Map<string, string>();
  const files = (osc.spec.files ?? [])
    .filter((f) => f.path.startsWith('/etc/sysctl.d/') && f.path.endsWith('.conf') && f.content.inline)
    .sort((a, b) => a.path.localeCompare(b.path));
  for (const f of files) {
    const inline = f.content.inline!;
    const text =
      inline.encoding === 'b64' ? Buffer.from(inline.data, 'base64').toString('utf8') : inline.data;
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (!line || line.startsWith('#') || line.startsWith(';') || !line.includes('=')) continue;
      const key = line.slice(0, line.indexOf('=')).trim().replace(/^-/, '');
      values.set(key, line.slice(line.indexOf('=') + 1).trim());
    }
  }
  return values;
}

/** The /proc/sys path of a key: dots separate unless the key uses slashes (sysctl.d(5)). Pure. */
export function procSysPath(key: string): string {
  return key.includes('/') ? key : key.replaceAll('.', '/');
}

const normalise = (value: string) => value.trim().split(/\s+/).join(' ');

export function sysctlReadback(root: string): InEffectCheck {
  return {
    name: 'sysctl',
    async check(osc): Promise<readonly Mismatch[]> {
      const mismatches: Mismatch[] = [];
      for (const [key, rendered] of renderedSysctls(osc)) {
        let running: string;
        try {
          running = await readFile(join(root, 'proc/sys', procSysPath(key)), 'utf8');
        } catch {
          continue;
        }
        if (normalise(running) !== normalise(rendered))
          mismatches.push({ field: key, rendered: normalise(rendered), running: normalise(running) });
      }
      return mismatches;
    },
  };
}
