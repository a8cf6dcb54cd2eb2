/**
 * Host paths of the contract (gardener v1.91.4 pkg/apis/core/v1beta1/constants/types_constants.go,
 * pkg/component/extensions/operatingsystemconfig/original/components/,
 * pkg/nodeagent/apis/config/v1alpha1/types.go,
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go).
 */
const NODE_AGENT_BASE = '/var/lib/gardener-node-agent';
const NODE_AGENT_CREDENTIALS = `${NODE_AGENT_BASE}/credentials`;
const KUBELET = '/var/lib/kubelet';
const DOWNLOADER = '/var/lib/cloud-config-downloader';

export const PATH = {
  nodeAgentBaseDir: NODE_AGENT_BASE,
  nodeAgentCredentialsDir: NODE_AGENT_CREDENTIALS,
  nodeAgentTempDir: `${NODE_AGENT_BASE}/tmp`,
  nodeAgentConfig: `${NODE_AGENT_BASE}/config.yaml`,
  nodeAgentToken: `${NODE_AGENT_CREDENTIALS}/token`,
  nodeAgentBootstrapToken: `${NODE_AGENT_CREDENTIALS}/bootstrap-token`,
  /** The per-node identity: a kubeconfig with the agent's client certificate (upstream's later path). */
  nodeAgentKubeconfig: `${NODE_AGENT_CREDENTIALS}/kubeconfig`,
  /** The machine's name when the machine's provisioning wrote it (upstream's later path). */
  nodeAgentMachineName: `${NODE_AGENT_BASE}/machine-name`,
  nodeAgentInitScript: `${NODE_AGENT_BASE}/init.sh`,
  lastAppliedOsc: `${NODE_AGENT_BASE}/last-applied-osc.yaml`,
  binaryDir: '/opt/bin',
  nodeAgentBinary: '/opt/bin/gardener-node-agent',
  systemdUnitDir: '/etc/systemd/system',
  kubeletDir: KUBELET,
  kubeletBootstrapKubeconfig: `${KUBELET}/kubeconfig-bootstrap`,
  kubeletKubeconfig: `${KUBELET}/kubeconfig-real`,
  kubeletClientCertificate: `${KUBELET}/pki/kubelet-client-current.pem`,
  kubeletCaBundle: `${KUBELET}/ca.crt`,
  kubeletConfig: `${KUBELET}/config/kubelet`,
  kubeletBinary: '/opt/bin/kubelet',
  kubeletVolumePluginDir: `${KUBELET}/volumeplugins`,
  downloaderDir: DOWNLOADER,
  downloaderToken: `${DOWNLOADER}/credentials/token`,
  downloaderServer: `${DOWNLOADER}/credentials/server`,
  downloaderCaBundle: `${DOWNLOADER}/credentials/ca.crt`,
  downloaderBootstrapToken: `${DOWNLOADER}/credentials/bootstrap-token`,
  downloaderScript: `${DOWNLOADER}/download-cloud-config.sh`,
  downloaderCloudConfig: `${DOWNLOADER}/downloads/cloud_config`,
  downloaderUnitFile: '/etc/systemd/system/cloud-config-downloader.service',
  downloaderUnitWantsLink: '/etc/systemd/system/multi-user.target.wants/cloud-config-downloader.service',
  valitailAuthToken: '/var/lib/valitail/auth-token',
} as const;
