/**
 * The legacy cloud-config-downloader (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/downloader/downloader.go), rendered with the gate
 * off: a unit that systemd restarts every 30 s, its credentials and its script. Its CA comes from a
 * secret reference that gardenlet resolves when it writes the OSC secret.
 */
import {
  BOOTSTRAP_TOKEN_PLACEHOLDER,
  DATA_KEY,
  type OscFile,
  type OscUnit,
  PATH,
  UNIT,
} from '../../api/index.js';
import { b64, type ComponentOutput, MODE, plain } from '../component.js';
import { downloadScript } from './download-script.js';

export const DOWNLOADER_UNIT_CONTENT = `[Unit]
Description=Downloads the actual cloud config from the Shoot API server and executes it
After=docker.service docker.socket
Wants=docker.socket
[Service]
Restart=always
RestartSec=30
RuntimeMaxSec=1200
EnvironmentFile=/etc/environment
ExecStart=${PATH.downloaderScript}
[Install]
WantedBy=multi-user.target`;

export function downloader(
  secretName: string,
  apiServerUrl: string,
  clusterCaSecretName: string,
): ComponentOutput {
  const units: OscUnit[] = [
    { name: UNIT.downloader, command: 'start', enable: true, content: DOWNLOADER_UNIT_CONTENT },
  ];
  const files: OscFile[] = [
    { path: PATH.downloaderServer, permissions: MODE.rw, content: b64(apiServerUrl) },
    {
      path: PATH.downloaderCaBundle,
      permissions: MODE.rw,
      content: { secretRef: { name: clusterCaSecretName, dataKey: DATA_KEY.bundle } },
    },
    { path: PATH.downloaderScript, permissions: MODE.script, content: b64(downloadScript(secretName)) },
    {
      path: PATH.downloaderBootstrapToken,
      permissions: MODE.rw,
      content: { ...plain(BOOTSTRAP_TOKEN_PLACEHOLDER), transmitUnencoded: true },
    },
  ];
  return { units, files };
}
