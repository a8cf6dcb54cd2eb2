/**
 * The node agent's own systemd unit. The seed renders it into the OSC and `bootstrap` writes it on
 * the node; both take it from here (node-agent/ may not import components/).
 */
import { PATH } from './well-known/paths.js';

export const NODE_AGENT_UNIT_CONTENT = `[Unit]
Description=Gardener Node Agent
After=network-online.target

[Service]
LimitMEMLOCK=infinity
ExecStart=${PATH.nodeAgentBinary} --config=${PATH.nodeAgentConfig}
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target`;

/**
 * The unit of the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go): started
 * with `--config-dir`, logging to the console too. v1.150's init.sh runs `bootstrap --config-dir`,
 * and bootstrap then writes this unit.
 */
export const NODE_AGENT_UNIT_CONTENT_V150 = `[Unit]
Description=Gardener Node Agent
After=network-online.target

[Service]
LimitMEMLOCK=infinity
ExecStart=${PATH.nodeAgentBinary} --config-dir=${PATH.nodeAgentBaseDir}
Restart=always
RestartSec=5
StandardOutput=journal+console
StandardError=journal

[Install]
WantedBy=multi-user.target`;

/**
 * `bootstrap` writes the unit file with this mode (gardener v1.91.4 pkg/nodeagent/bootstrap/bootstrap.go).
 */
export const NODE_AGENT_UNIT_FILE_MODE = 0o644;
