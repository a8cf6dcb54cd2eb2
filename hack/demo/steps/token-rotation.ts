/**
 * Step 4/4, an access-token rotation: the renew timestamp of the seed secret
 * `shoot-access-gardener-node-agent` is moved into the past; the token-requestor writes a new
 * token into the shoot and every agent puts it into its token file.
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { ANNOTATION, DATA_KEY, NAME, NAMESPACE_KUBE_SYSTEM, PATH } from '../../../api/index.js';
import type { DemoNode } from '../node.js';
import type { NodeResult, ScenarioResult } from '../scenario-result.js';
import type { ScenarioRun } from '../scenario-run.js';
import { assertNodesHealthy, withLog } from '../shoot-reads.js';
import { until } from '../wait.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export type TokenRotationOutcome = ScenarioResult['tokens'] & {
  readonly nodes: ReadonlyMap<string, NodeResult['token']>;
};

export async function rotateAccessToken(run: ScenarioRun): Promise<TokenRotationOutcome> {
  run.heading('tokens', "4/4 Access-token rotation: the agent's token reaches every node");
  const from = Date.now();
  const tokenMarks = new Map(run.nodes.map((n) => [n.name, n.logSize()]));
  const oldToken = (
    await run.landscape.shootCore.readNamespacedSecret({
      name: NAME.nodeAgent,
      namespace: NAMESPACE_KUBE_SYSTEM,
    })
  ).data?.[DATA_KEY.token];
  const accessSecret = `${NAME.shootAccessPrefix}${NAME.nodeAgent}`;
  await run.landscape.seedCore.patchNamespacedSecret(
    {
      name: accessSecret,
      namespace: run.landscape.namespace,
      body: {
        metadata: {
          annotations: {
            [ANNOTATION.tokenRenewTimestamp]: new Date(Date.now() - 3600_000)
              .toISOString()
              .replace(/\.\d+Z$/, 'Z'),
          },
        },
      },
    },
    mergePatch,
  );
  const rotatedAt = Date.now();
  run.emit(
    'step',
    `set ${ANNOTATION.tokenRenewTimestamp} of the seed secret ${accessSecret} one hour into the past`,
  );
  const newToken = await until(
    'the token-requestor to write a new token into the shoot',
    async () => {
      const t = (
        await run.landscape.shootCore.readNamespacedSecret({
          name: NAME.nodeAgent,
          namespace: NAMESPACE_KUBE_SYSTEM,
        })
      ).data?.[DATA_KEY.token];
      return t && t !== oldToken ? Buffer.from(t, 'base64').toString('utf8') : undefined;
    },
    { timeoutMs: 60_000, signal: run.signal, intervalMs: 100 },
  ).catch(withLog(run.controllerManager!, run.controllerManagerLog));
  const newTokenAt = Date.now();
  run.emit('step', `the token-requestor wrote a new token into kube-system/${NAME.nodeAgent}`);
  const tokenAt = new Map<string, number>();
  const tokenLogUpdate = (node: DemoNode) => {
    const entry = node
      .logEntries(tokenMarks.get(node.name) ?? 0)
      .find((e) => e.msg === 'Updated token file' && e.path === PATH.nodeAgentToken);
    return entry ? Date.parse(String(entry.time)) : undefined;
  };
  await until(
    "every node's token file to hold the new token",
    () => {
      for (const node of run.nodes) {
        if (tokenAt.has(node.name)) continue;
        if (node.readRootFile(PATH.nodeAgentToken) === newToken) {
          const at = tokenLogUpdate(node) ?? Date.now();
          tokenAt.set(node.name, at);
          run.emit(
            'node',
            `token file updated, ${((at - rotatedAt) / 1000).toFixed(2)} s after the renew timestamp was moved`,
            node.name,
          );
        }
      }
      assertNodesHealthy(run.nodes);
      return tokenAt.size === run.nodes.length;
    },
    { timeoutMs: 60_000, signal: run.signal, intervalMs: 100 },
  );
  const allUpdatedAt = Date.now();
  run.phases.tokens = { from: run.since(from), to: run.since(Date.now()) };
  const nodes = new Map<string, NodeResult['token']>();
  for (const node of run.nodes)
    nodes.set(node.name, {
      updatedAt: run.since(tokenAt.get(node.name) ?? Number.NaN),
      ok: node.readRootFile(PATH.nodeAgentToken) === newToken,
    });
  return {
    rotatedAt: run.since(rotatedAt),
    newTokenAt: run.since(newTokenAt),
    allUpdatedAt: run.since(allUpdatedAt),
    nodes,
  };
}
