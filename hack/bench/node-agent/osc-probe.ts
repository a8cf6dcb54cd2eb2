/** The OSC under test: the rendered one of the example's first pool plus a probe unit each update changes. */
import { type OperatingSystemConfig, stringifyYaml } from '../../../api/index.js';

export const PROBE_UNIT = 'bench-probe.service';

export function withProbe(osc: OperatingSystemConfig, generation: number): string {
  const copy = structuredClone(osc);
  copy.spec.units = [
    ...(copy.spec.units ?? []),
    {
      name: PROBE_UNIT,
      enable: true,
      command: 'start',
      content:
        '[Unit]\nDescription=node agent benchmark probe\n' +
        // a setting systemd acts on, so every update restarts the probe under any disruption
        // policy (a comment would restart nothing by default: docs/least-disruption.md)
        `[Service]\nType=oneshot\nEnvironment=PROBE_GENERATION=${generation}\nExecStart=/bin/true\n` +
        '[Install]\nWantedBy=multi-user.target\n',
    },
  ];
  return stringifyYaml(copy);
}
