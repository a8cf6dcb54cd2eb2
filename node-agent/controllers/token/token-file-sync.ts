/**
 * The token controller's work (gardener v1.91.4 pkg/nodeagent/controller/token/reconciler.go): copy
 * `data.token` of an access-token secret to its file, atomically with mode 0600, only when the
 * bytes differ, so the API client (which re-reads its token file) picks up rotations without a
 * restart.
 */
import { readFile, stat } from 'node:fs/promises';
import type { V1Secret } from '@kubernetes/client-node';
import { DATA_KEY, LABEL, LABEL_VALUE } from '../../../api/index.js';
import { HostRoot } from '../../applier/host-root.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';

export const TOKEN_FILE_MODE = 0o600;
/** The v1.150.0 contract's (0640 since gardener v1.150.0 pkg/nodeagent/controller/token/reconciler.go). */
export const TOKEN_FILE_MODE_V150 = 0o640;

export class TokenSecretError extends Error {}

export type TokenSyncOutcome = 'written' | 'unchanged';

export async function syncTokenFile(
  root: string,
  secret: V1Secret,
  path: string,
  mode: number = TOKEN_FILE_MODE,
): Promise<TokenSyncOutcome> {
  const encoded = secret.data?.[DATA_KEY.token];
  if (!encoded) {
    throw new TokenSecretError(
      `secret ${secret.metadata?.namespace}/${secret.metadata?.name}: key "token" does not exist or is empty`,
    );
  }
  const token = Buffer.from(encoded, 'base64');
  const file = new HostRoot(root).path(path);
  const current = await readFile(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (current?.equals(token) && ((await stat(file)).mode & 0o7777) === mode) return 'unchanged';
  await writeFileAtomic(file, token, mode);
  return 'written';
}

/** Real gardenlets do not label access-token secrets; our seed side does (token-labels controller). */
export function hasAccessTokenLabel(secret: V1Secret): boolean {
  return secret.metadata?.labels?.[LABEL.gardenerRole] === LABEL_VALUE.roleAccessToken;
}
