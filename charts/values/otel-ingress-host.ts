/**
 * The host of the shoot's OpenTelemetry Collector in the seed (gardenlet v1.150.0
 * `ComputeIngressHost("otc")`): `otc-<short ID>.<seed ingress domain>`, the short ID being the
 * technical ID without its `shoot-` prefix and one more dash, as for Vali (valiIngressHost).
 */
export function openTelemetryCollectorIngressHost(technicalId: string, ingressDomain: string): string {
  return `otc-${technicalId.replace(/^shoot--?/, '')}.${ingressDomain}`;
}
