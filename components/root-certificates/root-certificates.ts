/**
 * Adds the shoot's CA bundle to the node's trust store (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/rootcertificates/component.go),
 * in the two places the distributions read it from, and runs the update script early in boot and
 * whenever either changes.
 */
import { b64, type Component, MODE, NO_OUTPUT } from '../component.js';
import { updateLocalCaCertificatesScript } from './update-script.js';

const LOCAL_CERTS_DIR = '/var/lib/ca-certificates-local';

export const ROOT_CERTIFICATES_PATH = {
  script: '/var/lib/ssl/update-local-ca-certificates.sh',
  /** Debian-like systems, through update-ca-certificates --localcertsdir. */
  localBundle: `${LOCAL_CERTS_DIR}/ROOTcerts.crt`,
  /** Red Hat and SUSE systems. */
  trustAnchor: '/etc/pki/trust/anchors/ROOTcerts.pem',
} as const;

export const ROOT_CERTIFICATES_UNIT = 'updatecacerts.service';

const UNIT_CONTENT = [
  '[Unit]',
  'Description=Update local certificate authorities',
  '# Since other services depend on the certificate store run this early',
  'DefaultDependencies=no',
  'Wants=systemd-tmpfiles-setup.service clean-ca-certificates.service',
  'After=systemd-tmpfiles-setup.service clean-ca-certificates.service',
  'Before=sysinit.target kubelet.service',
  'ConditionPathIsReadWrite=/etc/ssl/certs',
  `ConditionPathIsReadWrite=${LOCAL_CERTS_DIR}`,
  'ConditionPathExists=!/var/lib/kubelet/kubeconfig-real',
  '[Service]',
  'Type=oneshot',
  `ExecStart=${ROOT_CERTIFICATES_PATH.script}`,
  '[Install]',
  'WantedBy=multi-user.target',
].join('\n');

export const rootCertificates: Component = (ctx) => {
  if (ctx.caBundle === undefined) return NO_OUTPUT;
  const files = [
    {
      path: ROOT_CERTIFICATES_PATH.script,
      permissions: MODE.script,
      content: b64(updateLocalCaCertificatesScript(LOCAL_CERTS_DIR)),
    },
    { path: ROOT_CERTIFICATES_PATH.localBundle, permissions: MODE.rw, content: b64(ctx.caBundle) },
    { path: ROOT_CERTIFICATES_PATH.trustAnchor, permissions: MODE.rw, content: b64(ctx.caBundle) },
  ];
  return {
    // No enable flag, as upstream (the flag is part of the OSC checksum): the unit runs when the
    // node applies the OSC and whenever one of its files changes, not on every boot.
    units: [
      {
        name: ROOT_CERTIFICATES_UNIT,
        command: 'start',
        content: UNIT_CONTENT,
        filePaths: files.map((f) => f.path),
      },
    ],
    files,
  };
};
