/**
 * The node a per-node identity names. The kubelet registers its Node under the machine's hostname
 * (Gardener sets no override), and the agent must ask for its identity before that Node exists, so
 * the name comes from, in order: `--node-name`, the machine-name file a machine's provisioning may
 * write (upstream's later path), the lower-cased kernel hostname.
 */
import { readFile } from 'node:fs/promises';
import { isNodeName, PATH } from '../../api/index.js';
import { HostRoot } from '../applier/host-root.js';

export async function identityNodeName(o: {
  readonly root: string;
  readonly nodeName?: string;
  readonly hostName: string;
}): Promise<string> {
  let name = o.nodeName;
  let source = '--node-name';
  if (!name) {
    const file = new HostRoot(o.root).path(PATH.nodeAgentMachineName);
    const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    });
    name = text?.split('\n')[0]?.trim() || undefined;
    source = PATH.nodeAgentMachineName;
  }
  if (!name) {
    name = o.hostName;
    source = 'the hostname';
  }
  if (!isNodeName(name))
    throw new Error(`the node name ${JSON.stringify(name)} (from ${source}) is not a valid Node name`);
  return name;
}
