/**
 * In effect, not only written: after an apply the agent asks the running components what they run
 * and compares it with what it rendered (docs/node-agent.md#in-effect). A field that differs is a
 * failed apply for the rollout gate, named in the report. Each check is behind this interface, so
 * tests run the agent with fakes; on a machine the agent manages (its root is `/`) the real ones
 * ask the kubelet (configz) and the kernel (/proc/sys).
 */
import type { OperatingSystemConfig } from '../../../../api/index.js';

/** One field of what runs that differs from what the agent rendered. */
export interface Mismatch {
  /** The field, e.g. `maxPods`, `evictionHard.memory.available`, `vm.max_map_count`. */
  readonly field: string;
  readonly rendered: string;
  readonly running: string;
}

export interface InEffectCheck {
  /** What is asked, e.g. `kubelet configz`, `sysctl`. */
  readonly name: string;
  /** The fields that differ (none: in effect); rejects when what runs cannot be asked. */
  check(osc: OperatingSystemConfig, signal: AbortSignal): Promise<readonly Mismatch[]>;
}

/** `kubelet configz maxPods is 110, rendered 111`. Pure. */
export function mismatchText(check: string, m: Mismatch): string {
  return `${check} ${m.field} is ${m.running}, rendered ${m.rendered}`;
}
