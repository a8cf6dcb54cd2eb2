/**
 * Check 1: every object we render, decoded strictly with upstream's schemes and validated with
 * upstream's validation: seed objects, what the ManagedResources carry into the shoot, and the
 * NodeAgentConfiguration files inside the OSCs.
 */
import type { RenderedObject } from '../../../charts/node-configuration.js';
import { type FileLike, fileText } from './compare-osc.js';
import type { Differences } from './difference.js';
import type { Oracle } from './oracle.js';

type Json = Record<string, unknown>;

export interface Document {
  readonly subject: string;
  readonly text: string;
}

const NODE_AGENT_CONFIG = '/var/lib/gardener-node-agent/config.yaml';

const nameOf = (o: Json) => {
  const m = (o.metadata ?? {}) as { name?: string; namespace?: string };
  return `${String(o.kind)} ${m.namespace ? `${m.namespace}/` : ''}${m.name ?? ''}`;
};

/** Every document to validate: the objects themselves and the configs inside OSC files. */
export function documentsOf(objects: readonly RenderedObject[]): Document[] {
  const docs: Document[] = [];
  for (const o of objects as unknown as Json[]) {
    docs.push({ subject: nameOf(o), text: JSON.stringify(o) });
    if (o.kind !== 'OperatingSystemConfig') continue;
    const spec = (o.spec ?? {}) as { files?: FileLike[] };
    for (const file of spec.files ?? []) {
      if (file.path !== NODE_AGENT_CONFIG) continue;
      const text = fileText(file);
      if (text !== undefined) docs.push({ subject: `${nameOf(o)} file ${file.path}`, text });
    }
  }
  return docs;
}

export async function validateAll(oracle: Oracle, d: Differences, docs: readonly Document[]): Promise<void> {
  const results = await oracle.ask<{ kind: string; errors: string[] }[]>('validate', {
    documents: docs.map((doc) => doc.text),
  });
  results.forEach((r, i) => {
    const doc = docs[i]!;
    if (r.errors.length > 0) d.add(doc.subject, '', `${r.kind} validation`, 'valid', r.errors);
  });
}
