/**
 * Wires the secret-name change (secret-name-change.ts): the agent's Node informer enqueues its one
 * key when the secret-name label is set or changes; a rewritten configuration restarts the agent.
 */
import type { V1Node } from '@kubernetes/client-node';
import { newController, type WatchSource } from '../../../runtime/controller-builder.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { RunningController } from '../../../runtime/running-controller.js';
import { followSecretName, secretNameLabelChanged } from './secret-name-change.js';

export const SECRET_NAME_CHANGE_CONTROLLER_NAME = 'secretnamechange';
const KEY = 'node';

export interface SecretNameChangeOptions {
  readonly nodes: WatchSource<V1Node> & { list(): V1Node[] };
  /** The configuration file the agent was started with. */
  readonly configFile: string;
  readonly restartSelf: () => void;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
}

export function addSecretNameChangeController(
  o: SecretNameChangeOptions,
  signal: AbortSignal,
): RunningController {
  return newController(SECRET_NAME_CHANGE_CONTROLLER_NAME, {
    log: o.log ?? silentLogger,
    metrics: o.metrics,
    timeoutMs: 60_000,
  })
    .watches(
      o.nodes,
      () => KEY,
      { create: (node) => secretNameLabelChanged(undefined, node), update: secretNameLabelChanged },
      { waitForSync: false },
    )
    .start(signal, async (_key, ctx) => {
      if (!(await followSecretName(o.configFile, o.nodes.list()[0]))) return undefined;
      ctx.log.info(
        { configFile: o.configFile },
        'The OSC secret name in the configuration did not match the Node label: rewritten, restarting the node agent',
      );
      o.restartSelf();
      return undefined;
    });
}
