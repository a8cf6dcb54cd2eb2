/**
 * NODE_AGENT_REFUSE_HOST_ROOT=1 (set by every test harness): a command whose root is the machine's
 * `/` exits 2 before touching anything, so no test can ever configure the machine it runs on.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../runtime/cli/exit-codes.js';

export const REFUSE_HOST_ROOT_ENV = 'NODE_AGENT_REFUSE_HOST_ROOT';

function resolvesToSlash(root: string): boolean {
  const absolute = resolve(root);
  if (absolute === '/') return true;
  try {
    return realpathSync(absolute) === '/';
  } catch {
    return false;
  }
}

/** The absolute root, after refusing `/` when the environment says so and checking it is a directory. */
export function checkedRoot(root: string, env: NodeJS.ProcessEnv): string {
  if (env[REFUSE_HOST_ROOT_ENV] === '1' && resolvesToSlash(root)) {
    throw new UsageError(
      `refusing to work on the host root ${JSON.stringify(root)} (${REFUSE_HOST_ROOT_ENV}=1)`,
    );
  }
  const absolute = resolve(root);
  let isDir = false;
  try {
    isDir = statSync(absolute).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDir) throw new UsageError(`--root ${JSON.stringify(root)} is not a directory`);
  return absolute;
}
