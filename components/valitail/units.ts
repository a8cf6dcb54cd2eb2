/**
 * valitail's systemd units (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/valitail/component.go), byte
 * for byte: the node agent diffs unit contents, so any change here restarts valitail on every node.
 */
import { UNIT } from '../../api/index.js';
import { VALITAIL_PATH, VALITAIL_UNIT } from './paths.js';

/** How valitail gets onto the node and whether it runs at all. */
export type ValitailUnitMode =
  /** Gate on: the node agent pulls the binary (imageRef) and syncs the token. */
  | { readonly kind: 'node-agent' }
  /** Gate off: the unit copies the binary out of the image with docker before each start. */
  | { readonly kind: 'legacy'; readonly image: string }
  /**
   * Gate off, logging turned off: the legacy executor never removes units, so the unit disables
   * itself and idles until the node is rebuilt.
   */
  | { readonly kind: 'legacy-disabled' };

const SET_HOSTNAME =
  'ExecStartPre=/bin/sh -c "systemctl set-environment HOSTNAME=$(hostname | tr [:upper:] [:lower:])"';

export function valitailUnitContent(mode: ValitailUnitMode): string {
  const legacy = mode.kind !== 'node-agent';
  const lines = [
    '[Unit]',
    'Description=valitail daemon',
    'Documentation=https://github.com/credativ/plutono',
    ...(legacy ? [`After=${VALITAIL_UNIT.fetchToken}`] : []),
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
    SET_HOSTNAME,
  ];
  switch (mode.kind) {
    case 'node-agent':
      lines.push(execStartValitail());
      break;
    case 'legacy':
      lines.push(
        `ExecStartPre=/usr/bin/docker run --rm -v /opt/bin:/opt/bin:rw --entrypoint /bin/sh ${mode.image} -c "cp ${VALITAIL_PATH.binaryInImage} /opt/bin"`,
        execStartValitail(),
      );
      break;
    case 'legacy-disabled':
      lines.push(
        `ExecStartPre=/bin/systemctl disable ${VALITAIL_UNIT.valitail}`,
        `ExecStart=/bin/sh -c "echo service ${VALITAIL_UNIT.valitail} is removed!; while true; do sleep 86400; done"`,
      );
      break;
  }
  return lines.join('\n');
}

function execStartValitail(): string {
  return `ExecStart=${VALITAIL_PATH.binary} -config.file=${VALITAIL_PATH.config}`;
}

/** Gate off only: the unit that keeps valitail's token fresh (every 300 s) from the shoot. */
export function fetchTokenUnitContent(enabled: boolean): string {
  const lines = [
    '[Unit]',
    'Description=valitail token fetcher',
    `After=${UNIT.downloader}`,
    '[Install]',
    'WantedBy=multi-user.target',
    '[Service]',
    'Restart=always',
    'RestartSec=300',
    'RuntimeMaxSec=120',
    'EnvironmentFile=/etc/environment',
  ];
  if (enabled) {
    lines.push(`ExecStart=${VALITAIL_PATH.fetchTokenScript}`);
  } else {
    lines.push(
      `ExecStartPre=/bin/systemctl disable ${VALITAIL_UNIT.fetchToken}`,
      `ExecStart=/bin/sh -c "rm -f ${VALITAIL_PATH.authToken}; echo service ${VALITAIL_UNIT.fetchToken} is removed!; while true; do sleep 86400; done"`,
    );
  }
  return lines.join('\n');
}
