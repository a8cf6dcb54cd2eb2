/**
 * What the schema (config.ts) cannot see in one field: a ControllerManagerConfiguration whose
 * fields are each valid but which cannot work together. `controller-manager` (and its
 * `--check-config`) and `manifests` refuse these before anything starts or renders, naming the field
 * (docs/controller-manager.md, "Configuration checks").
 */
import { dirname } from 'node:path';
import { type FieldError, NODE_AGENT_IDENTITY } from '../../api/index.js';
import type { ControllerManagerConfiguration } from './config.js';

export interface CheckOptions {
  /**
   * The configuration runs in a pod (`manifests`, `--check-config`): every port is a container
   * port the probes, Services and network policies name, so 0 (any free port) cannot be used; the
   * authorizer's certificate and key come from one Secret mounted in one directory.
   */
  readonly forPod?: boolean;
}

/** The ports the process listens on, by field. */
function listeners(config: ControllerManagerConfiguration): [string, number][] {
  const ports: [string, number][] = [
    ['server.healthProbes.port', config.server.healthProbes.port],
    ['server.metrics.port', config.server.metrics.port],
  ];
  if (config.nodeAgent.identity === NODE_AGENT_IDENTITY.node && config.nodeAgent.authorizer)
    ports.push(['nodeAgent.authorizer.port', config.nodeAgent.authorizer.port]);
  return ports;
}

export function configurationProblems(
  config: ControllerManagerConfiguration,
  options: CheckOptions = {},
): FieldError[] {
  const problems: FieldError[] = [];
  if (config.nodeAgent.identity === NODE_AGENT_IDENTITY.node && !config.nodeAgent.authorizer)
    // controllers/index.ts starts the CSR approver, so agents get identities, but every shoot
    // kube-apiserver's webhook (charts/controller-manager/authorization-config.ts) fails closed
    problems.push({
      type: 'Required',
      field: 'nodeAgent.authorizer',
      detail:
        'required with nodeAgent.identity node: without the authorizer no shoot kube-apiserver can ask whether a node agent may act, so no agent is authorized (or set nodeAgent.identity: serviceAccount, the shared identity of Gardener v1.91)',
    });
  const authorizer = config.nodeAgent.authorizer;
  if (options.forPod && config.nodeAgent.identity === NODE_AGENT_IDENTITY.node && authorizer)
    for (const key of ['keyFile', 'tokenKeyFile'] as const)
      if (dirname(authorizer[key]) !== dirname(authorizer.certFile))
        problems.push({
          type: 'Invalid',
          field: `nodeAgent.authorizer.${key}`,
          value: authorizer[key],
          detail: `must be in the directory of certFile (${dirname(authorizer.certFile)}): one Secret is mounted there`,
        });
  problems.push(...inV150ModeProblems(config));
  const seen = new Map<number, string>();
  for (const [field, port] of listeners(config)) {
    if (port === 0) {
      if (options.forPod)
        problems.push({
          type: 'Invalid',
          field,
          value: 0,
          detail:
            'must be a fixed port in a pod (0, any free port, is for a local process: its probes and Services name the port)',
        });
      continue;
    }
    const other = seen.get(port);
    if (other)
      problems.push({ type: 'Duplicate', field, value: port, detail: `port ${port} is also ${other}` });
    else seen.set(port, field);
  }
  return problems;
}

/** `inV150Mode` on for a controller that does not run at all: the operator expects it to act. */
function inV150ModeProblems(config: ControllerManagerConfiguration): FieldError[] {
  const { nodeDelay, nodeAgentCsrApprover, nodeAgentAuthorizer } = config.controllers;
  const problems: FieldError[] = [];
  if (nodeDelay.inV150Mode && !nodeDelay.enabled)
    problems.push({
      type: 'Invalid',
      field: 'controllers.nodeDelay.inV150Mode',
      value: true,
      detail:
        'the node-delay controller is off (controllers.nodeDelay.enabled: false), so it acts for no Cluster',
    });
  if (config.nodeAgent.identity === NODE_AGENT_IDENTITY.node) return problems;
  for (const [name, on] of [
    ['nodeAgentCsrApprover', nodeAgentCsrApprover.inV150Mode],
    ['nodeAgentAuthorizer', nodeAgentAuthorizer.inV150Mode],
  ] as const)
    if (on)
      problems.push({
        type: 'Invalid',
        field: `controllers.${name}.inV150Mode`,
        value: true,
        detail: `runs only with nodeAgent.identity node (it is ${config.nodeAgent.identity})`,
      });
  return problems;
}
