/**
 * The Kubernetes and Gardener objects the code reads from an API server, as the API's JSON (what
 * an informer cache or a GET returns, timestamps as strings): one structural type per kind, with
 * the fields some part of the project reads. Decoding with validation is api/schema's job; these
 * types only say what may be there. `null` is allowed wherever the API may send it.
 */

export type Labels = Readonly<Record<string, string>> | null;

/** metav1.ObjectMeta as the API serves it, the fields read here. */
export interface ApiObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string | null;
  readonly labels?: Labels;
  readonly annotations?: Labels;
  readonly finalizers?: readonly string[];
}

/**
 * Any object: what list, watch and the caches need of every kind. Its metadata is the part every
 * representation shares (client-node's V1 types hold timestamps as Dates), so they fit too.
 */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: Pick<ApiObjectMeta, 'name' | 'namespace' | 'resourceVersion' | 'uid'>;
}

/** An object as the API's JSON: the full metadata read here. */
export interface ApiObject extends KubeObject {
  readonly metadata?: ApiObjectMeta;
}

/** extensions.gardener.cloud/v1alpha1 Cluster; `spec` is decoded on use (schema/cluster.ts). */
export interface ClusterObject extends ApiObject {
  readonly spec?: unknown;
}

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

export interface NodeCondition {
  readonly type?: string;
  readonly status?: string;
  readonly lastTransitionTime?: string | Date;
}

/** v1 Node. */
export interface NodeObject extends ApiObject {
  readonly spec?: { readonly taints?: readonly Taint[] | null };
  readonly status?: { readonly conditions?: readonly NodeCondition[] | null };
}

/** v1 Secret (the metadata only: the controllers that cache Secrets decide on labels and names). */
export interface SecretObject extends ApiObject {}

/** coordination.k8s.io/v1 Lease. */
export interface LeaseObject extends ApiObject {
  readonly spec?: {
    readonly renewTime?: string | Date | null;
    readonly leaseDurationSeconds?: number | null;
  };
}

export interface CsrCondition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastUpdateTime?: string;
}

/** certificates.k8s.io/v1 CertificateSigningRequest. */
export interface CsrObject extends ApiObject {
  readonly spec?: {
    readonly request?: string;
    readonly signerName?: string;
    readonly username?: string;
    readonly groups?: readonly string[];
    readonly usages?: readonly string[];
    readonly expirationSeconds?: number;
  };
  readonly status?: { readonly conditions?: readonly CsrCondition[]; readonly certificate?: string };
}
