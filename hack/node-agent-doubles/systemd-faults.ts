/**
 * Failure injection for the recording systemd, so tests and the demo can break an apply
 * deterministically: a start or restart of a named unit either fails (the job fails, the unit
 * ends up `failed`) or seems to succeed and leaves the unit `inactive` (it exited right after
 * starting). A rule may apply only while a file under the node's root contains a text, so a fault
 * belongs to one configuration (e.g. a kubelet config with a bad value) and the next one heals it.
 *
 * The rules are JSON in a file named by NODE_AGENT_TEST_SYSTEMD_FAULTS, read again at every start
 * and restart, so a running agent picks up a change:
 *
 *   [{"unit": "kubelet.service", "effect": "inactive",
 *     "whenFileContains": {"path": "/var/lib/kubelet/config/kubelet", "text": "maxPods: 120"}}]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

export const SYSTEMD_FAULTS_ENV = 'NODE_AGENT_TEST_SYSTEMD_FAULTS';

export const SYSTEMD_FAULT_EFFECTS = ['fail', 'inactive'] as const;
export type SystemdFaultEffect = (typeof SYSTEMD_FAULT_EFFECTS)[number];

const SystemdFaultSchema = z.strictObject({
  unit: z.string().min(1),
  effect: z.enum(SYSTEMD_FAULT_EFFECTS),
  whenFileContains: z.strictObject({ path: z.string().startsWith('/'), text: z.string() }).optional(),
});

export type SystemdFault = z.infer<typeof SystemdFaultSchema>;

const SystemdFaultsSchema = z.array(SystemdFaultSchema);

/** The rules in `file`; a missing file means none. A bad file is an error naming the field. */
export function readSystemdFaults(file: string): SystemdFault[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const parsed = SystemdFaultsSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/** The effect for a start or restart of `unit` now, if a rule matches (the first one wins). */
export function faultFor(
  faults: readonly SystemdFault[],
  unit: string,
  root: string | undefined,
): SystemdFaultEffect | undefined {
  for (const fault of faults) {
    if (fault.unit !== unit) continue;
    const when = fault.whenFileContains;
    if (when) {
      if (root === undefined) continue;
      let content = '';
      try {
        content = readFileSync(join(root, when.path), 'utf8');
      } catch {
        continue;
      }
      if (!content.includes(when.text)) continue;
    }
    return fault.effect;
  }
  return undefined;
}
