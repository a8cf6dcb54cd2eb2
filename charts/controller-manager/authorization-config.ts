/**
 * What a shoot's kube-apiserver needs to ask the node agent authorizer: a structured authorization
 * configuration (`--authorization-config`, apiserver.config.k8s.io/v1) with the Node authorizer,
 * then the node agent webhook for node agent users only (a match condition, so no other request
 * waits on it), then RBAC; and the webhook's kubeconfig. The webhook fails closed
 * (`failurePolicy: Deny`) and its decisions are cached by the API server: allowed for 5 minutes,
 * denied for 30 seconds, so an idle agent (a Lease renewal every 10 s, watches re-opened every few
 * minutes) rarely reaches it.
 */
import { NODE_AGENT_GROUP } from '../../api/index.js';

export const AUTHORIZER_WEBHOOK_PATH = '/webhooks/auth/nodeagent/';

export interface AuthorizationConfigurationInput {
  /** Where the kube-apiserver reads the webhook's kubeconfig. */
  readonly webhookKubeconfigPath: string;
  /** Go durations; defaults as documented above. */
  readonly timeout?: string;
  readonly authorizedTTL?: string;
  readonly unauthorizedTTL?: string;
}

export function nodeAgentAuthorizationConfiguration(i: AuthorizationConfigurationInput) {
  return {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthorizationConfiguration',
    authorizers: [
      { type: 'Node', name: 'node' },
      {
        type: 'Webhook',
        name: 'gardener-node-agent',
        webhook: {
          timeout: i.timeout ?? '3s',
          subjectAccessReviewVersion: 'v1',
          matchConditionSubjectAccessReviewVersion: 'v1',
          failurePolicy: 'Deny',
          authorizedTTL: i.authorizedTTL ?? '5m',
          unauthorizedTTL: i.unauthorizedTTL ?? '30s',
          cacheAuthorizedRequests: true,
          cacheUnauthorizedRequests: true,
          connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: i.webhookKubeconfigPath },
          matchConditions: [{ expression: `'${NODE_AGENT_GROUP}' in request.groups` }],
        },
      },
      { type: 'RBAC', name: 'rbac' },
    ],
  };
}

/** The URL of one shoot's authorizer endpoint under the controller-manager's base URL. */
export function authorizerUrl(base: string, shootNamespace: string): string {
  return `${base.replace(/\/+$/, '')}${AUTHORIZER_WEBHOOK_PATH}${encodeURIComponent(shootNamespace)}`;
}

/**
 * The kubeconfig the kube-apiserver calls the authorizer with (server: the shoot's endpoint; the
 * user: that shoot's bearer token, authorizer-caller-token.ts). It holds a credential: mount it
 * from a Secret.
 */
export function authorizerWebhookKubeconfig(i: {
  readonly url: string;
  readonly caPem: string;
  readonly token: string;
}) {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'authorizer',
    clusters: [
      {
        name: 'authorizer',
        cluster: {
          server: i.url,
          'certificate-authority-data': Buffer.from(i.caPem).toString('base64'),
        },
      },
    ],
    contexts: [{ name: 'authorizer', context: { cluster: 'authorizer', user: 'kube-apiserver' } }],
    users: [{ name: 'kube-apiserver', user: { token: i.token } }],
  };
}
