/**
 * The root certificates of the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/rootcertificates/component.go):
 * the same script and the same two bundle files as v1.91.4, written even when the bundle is
 * empty; with a registry CA also `registry-ca.crt` / `registry-ca.pem` (v1.149.0). The unit no
 * longer skips nodes that already joined (`ConditionPathExists=!…/kubeconfig-real` is gone), so a
 * CA change reaches running nodes.
 */
import type { OscFile } from '../../api/index.js';
import { b64, type ComponentOutput, MODE } from '../component.js';
import { ROOT_CERTIFICATES_PATH, ROOT_CERTIFICATES_UNIT } from './root-certificates.js';
import { updateLocalCaCertificatesScriptV150 } from './update-script-v150.js';

const LOCAL_CERTS_DIR = '/var/lib/ca-certificates-local';

const TRUST_ANCHORS_DIR = '/etc/pki/trust/anchors';

export const REGISTRY_CA_PATH_V150 = {
  localBundle: `${LOCAL_CERTS_DIR}/registry-ca.crt`,
  trustAnchor: `${TRUST_ANCHORS_DIR}/registry-ca.pem`,
  /** The directories node init creates before it writes the two files. */
  localDir: LOCAL_CERTS_DIR,
  trustAnchorsDir: TRUST_ANCHORS_DIR,
} as const;

const UNIT_CONTENT_V150 = [
  '[Unit]',
  'Description=Update local certificate authorities',
  '# Since other services depend on the certificate store run this early',
  'DefaultDependencies=no',
  'Wants=systemd-tmpfiles-setup.service clean-ca-certificates.service',
  'After=systemd-tmpfiles-setup.service clean-ca-certificates.service',
  'Before=sysinit.target kubelet.service',
  'ConditionPathIsReadWrite=/etc/ssl/certs',
  `ConditionPathIsReadWrite=${LOCAL_CERTS_DIR}`,
  '[Service]',
  'Type=oneshot',
  `ExecStart=${ROOT_CERTIFICATES_PATH.script}`,
  '[Install]',
  'WantedBy=multi-user.target',
].join('\n');

export interface RootCertificatesV150Input {
  /** The component context's CA bundle (cloud profile CA and cluster CA). */
  readonly caBundle: string;
  readonly registryCaBundle?: string;
}

/**
 * `update-local-ca-certificates.sh`, also in the provision OSC when a registry CA is set (upstream's
 * `UpdateLocalCACertificatesScriptFile`, which node init reuses).
 */
export function updateLocalCaCertificatesScriptFileV150(): OscFile {
  return {
    path: ROOT_CERTIFICATES_PATH.script,
    permissions: MODE.script,
    content: b64(updateLocalCaCertificatesScriptV150(LOCAL_CERTS_DIR)),
  };
}

export function rootCertificatesV150(input: RootCertificatesV150Input): ComponentOutput {
  const files: OscFile[] = [
    updateLocalCaCertificatesScriptFileV150(),
    { path: ROOT_CERTIFICATES_PATH.localBundle, permissions: MODE.rw, content: b64(input.caBundle) },
    { path: ROOT_CERTIFICATES_PATH.trustAnchor, permissions: MODE.rw, content: b64(input.caBundle) },
  ];
  if (input.registryCaBundle !== undefined) {
    for (const path of [REGISTRY_CA_PATH_V150.localBundle, REGISTRY_CA_PATH_V150.trustAnchor])
      files.push({ path, permissions: MODE.rw, content: b64(input.registryCaBundle) });
  }
  return {
    // No enable flag, as upstream: the unit runs when the node applies the OSC and whenever one of
    // its files changes.
    units: [
      {
        name: ROOT_CERTIFICATES_UNIT,
        command: 'start',
        content: UNIT_CONTENT_V150,
        filePaths: files.map((f) => f.path),
      },
    ],
    files,
  };
}
