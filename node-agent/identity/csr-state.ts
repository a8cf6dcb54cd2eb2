/**
 * Where a CertificateSigningRequest stands, as the requester sees it (pure): denied or failed
 * (with the condition's reason and message), issued (the signer wrote the certificate), or still
 * pending approval or signing.
 */

export interface CsrStatusView {
  readonly status?: {
    readonly certificate?: string;
    readonly conditions?: readonly {
      readonly type?: string;
      readonly status?: string;
      readonly reason?: string;
      readonly message?: string;
    }[];
  };
}

export type CsrState =
  | { readonly state: 'pending' }
  | { readonly state: 'issued'; readonly certificatePem: string }
  | { readonly state: 'denied' | 'failed'; readonly why: string };

export function csrState(csr: CsrStatusView): CsrState {
  for (const c of csr.status?.conditions ?? []) {
    if (c.status === 'False') continue;
    const why = [c.reason, c.message].filter(Boolean).join(': ') || 'no reason given';
    if (c.type === 'Denied') return { state: 'denied', why };
    if (c.type === 'Failed') return { state: 'failed', why };
  }
  const certificate = csr.status?.certificate;
  if (certificate) return { state: 'issued', certificatePem: Buffer.from(certificate, 'base64').toString() };
  return { state: 'pending' };
}
