/**
 * valitail in the Gardener v1.150.0 contract, the log shipper while gardenlet's
 * `OpenTelemetryCollector` gate is off (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/original.go `Components` and
 * …/components/valitail/{component.go,config.go}). What changed since v1.91.4: only the node
 * agent's form is left (no fetch-token script, no self-disabling unit; the agent removes what the
 * OSC no longer lists, so logging off is nothing), the unit waits for the token the agent syncs
 * (`test -s …/auth-token`), and the CA file carries the v1.150 bundle (no leading line break,
 * values/ca-bundle-v150.ts). The configuration is upstream's template, byte for byte (config-v150.ts).
 */
import type { OscFile, OscUnit } from '../../api/index.js';
import { b64, type ComponentOutput, MODE, NO_OUTPUT } from '../component.js';
import { valitailConfigV150 } from './config-v150.js';
import { VALITAIL_PATH, VALITAIL_UNIT } from './paths.js';

const UNIT_CONTENT_V150 = [
  '[Unit]',
  'Description=valitail daemon',
  'Documentation=https://github.com/credativ/plutono',
  '[Install]',
  'WantedBy=multi-user.target',
  '[Service]',
  'CPUAccounting=yes',
  'MemoryAccounting=yes',
  'CPUQuota=3%',
  'CPUQuotaPeriodSec=1000ms',
  'MemoryMin=29M',
  'MemoryHigh=400M',
  'MemoryMax=800M',
  'MemorySwapMax=0',
  'Restart=always',
  'RestartSec=5',
  'EnvironmentFile=/etc/environment',
  'ExecStartPre=/bin/sh -c "systemctl set-environment HOSTNAME=$(hostname | tr [:upper:] [:lower:])"',
  `ExecStartPre=/bin/sh -c "test -s ${VALITAIL_PATH.authToken}"`,
  `ExecStart=${VALITAIL_PATH.binary} -config.file=${VALITAIL_PATH.config}`,
].join('\n');

export interface ValitailV150Input {
  /** Node logging on (the shoot's logging and gardenlet's configuration allow it). */
  readonly enabled: boolean;
  /** The Vali ingress host in the seed, `v-<short technical ID>.<ingress domain>`. */
  readonly valiIngress: string;
  /** The component context's CA bundle. */
  readonly caBundle: string;
  readonly apiServerUrl: string;
  /** `valitail` of the image vector. */
  readonly image: string;
}

export function valitailV150(input: ValitailV150Input): ComponentOutput {
  if (!input.enabled) return NO_OUTPUT;
  if (input.valiIngress === '') throw new Error('vali ingress url is missing');
  const config = valitailConfigV150({ valiIngress: input.valiIngress, apiServerUrl: input.apiServerUrl });
  const files: OscFile[] = [
    { path: VALITAIL_PATH.config, permissions: MODE.rw, content: b64(config) },
    { path: VALITAIL_PATH.caCert, permissions: MODE.rw, content: b64(input.caBundle) },
    {
      path: VALITAIL_PATH.binary,
      permissions: MODE.rwx,
      content: { imageRef: { image: input.image, filePathInImage: VALITAIL_PATH.binaryInImage } },
    },
  ];
  const units: OscUnit[] = [
    {
      name: VALITAIL_UNIT.valitail,
      command: 'start',
      enable: true,
      content: UNIT_CONTENT_V150,
      filePaths: files.map((f) => f.path),
    },
  ];
  return { units, files };
}
