/**
 * The nodes of a scenario run: simulated roots with recorded systemd (node.ts), or with
 * `--real-nodes` real nodes, nspawn containers with systemd as PID 1 (real-demo-node.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DemoNode, type NodeEnvironment, type NodeSpec } from './node.js';
import { RealDemoNode, type RealNodeEnvironment } from './real-demo-node.js';
import type { ScenarioNode } from './scenario-node.js';

export type NodeKind =
  | { readonly real: false; readonly env: NodeEnvironment }
  | { readonly real: true; readonly env: RealNodeEnvironment };

/** A node of the run; a real one boots only when it gets the legacy state. */
export function createNode(spec: NodeSpec, workDir: string, kind: NodeKind): ScenarioNode {
  if (!kind.real) return new DemoNode(spec, workDir, kind.env);
  const dir = join(workDir, 'nodes', spec.name);
  mkdirSync(dir, { recursive: true });
  return new RealDemoNode(spec, dir, kind.env);
}
