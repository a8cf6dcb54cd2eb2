import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type DelaysOptions, runDelays } from '../../cli/delays-command.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { runMain } from './run-main.js';

const NODES = `apiVersion: v1
kind: List
items:
- metadata:
    name: node-c
    labels: {topology.kubernetes.io/zone: eu-1c}
- metadata:
    name: node-a
    labels: {topology.kubernetes.io/zone: eu-1a}
    annotations: {node-agent.gardener.cloud/reconciliation-delay: fjj123hi}
- metadata:
    name: node-b
    labels: {topology.kubernetes.io/zone: eu-1a}
- metadata:
    name: "true"
    labels: {topology.kubernetes.io/zone: eu-1b}
`;

const defaults = (extra: Partial<DelaysOptions> = {}): DelaysOptions => ({
  nodes: 'nodes.yaml',
  min: '0s',
  max: '5m',
  ...extra,
});

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('gardener-osc delays', () => {
  it('prints {node: delay} sorted by delay, zones interleaved, names quoted as Go would', () => {
    const { output, warnings } = runDelays(defaults(), { 'nodes.yaml': NODES });
    expect(output).to.equal('node-a: 0s\n"true": 1m15s\nnode-c: 2m30s\nnode-b: 3m45s\n');
    expect(warnings).to.deep.equal([
      'items[1].metadata.annotations[node-agent.gardener.cloud/reconciliation-delay]: "fjj123hi" is not a duration, ignored',
    ]);
  });

  it('reads JSON too, and an empty list gives {}', () => {
    const json = JSON.stringify({
      kind: 'NodeList',
      items: [
        {
          metadata: {
            name: 'n1',
            annotations: { 'node-agent.gardener.cloud/reconciliation-delay': '2m30s' },
          },
        },
      ],
    });
    expect(runDelays(defaults(), { 'nodes.yaml': json }).output).to.equal('n1: 0s\n');
    expect(runDelays(defaults(), { 'nodes.yaml': '{"items": []}' }).output).to.equal('{}\n');
  });

  it('--previous (an earlier output) keeps delays; a node it lacks falls back to its annotation; zones are repaired', () => {
    const previous = 'node-a: 3m45s\n"true": 0s\n';
    const nodes = NODES.replace(
      'name: node-c\n',
      'name: node-c\n    annotations: {node-agent.gardener.cloud/reconciliation-delay: 1m15s}\n',
    );
    const { output, assignment } = runDelays(defaults({ previous: 'prev.yaml' }), {
      'nodes.yaml': nodes,
      'prev.yaml': previous,
    });
    // node-a and "true" keep --previous, node-c its annotation; new node-b (eu-1a) only fits
    // next to node-a (eu-1a), so the repair swaps it with node-c: one other node changes.
    expect(output).to.equal('"true": 0s\nnode-b: 1m15s\nnode-c: 2m30s\nnode-a: 3m45s\n');
    expect(assignment.moved).to.deep.equal(['node-c']);
    expect(assignment.events).to.equal(1);
  });

  it('without --previous the annotations are the previous assignment: feeding the output back changes nothing', () => {
    const first = runDelays(defaults(), { 'nodes.yaml': NODES }).output;
    const annotated = NODES.replace('fjj123hi', '0s')
      .replace(
        'name: node-c\n',
        'name: node-c\n    annotations: {node-agent.gardener.cloud/reconciliation-delay: 2m30s}\n',
      )
      .replace(
        'name: node-b\n',
        'name: node-b\n    annotations: {node-agent.gardener.cloud/reconciliation-delay: 3m45s}\n',
      )
      .replace(
        'name: "true"\n',
        'name: "true"\n    annotations: {node-agent.gardener.cloud/reconciliation-delay: 1m15s}\n',
      );
    const again = runDelays(defaults(), { 'nodes.yaml': annotated });
    expect(again.output).to.equal(first);
    expect(again.assignment.patches).to.deep.equal([]);
  });

  it('--min and --max bound the delays', () => {
    const { output } = runDelays(defaults({ min: '30s', max: '1h30m' }), { 'nodes.yaml': NODES });
    expect(output).to.equal('node-a: 30s\n"true": 22m52.5s\nnode-c: 45m15s\nnode-b: 1h7m37.5s\n');
  });

  it('bad input names the field', () => {
    const bad = `items:
- metadata: {name: a}
- metadata: {}
- metadata: {name: a}
- metadata: {name: b, labels: {x: [1]}}
- kind: Node
`;
    const message = usageError(() => runDelays(defaults(), { 'nodes.yaml': bad }));
    expect(message).to.equal(
      [
        'invalid nodes nodes.yaml:',
        '  - items[1].metadata.name: Required value: a node needs a non-empty name',
        '  - items[2].metadata.name: Duplicate value: "a": same as items[0]',
        '  - items[3].metadata.labels[x]: Invalid value: must be a string',
        '  - items[4].metadata: Required value: must be an object',
      ].join('\n'),
    );
    expect(usageError(() => runDelays(defaults(), { 'nodes.yaml': 'kind: Node\n' }))).to.match(
      /items: Required value/,
    );
    expect(usageError(() => runDelays(defaults(), { 'nodes.yaml': 'items: {}\n' }))).to.match(
      /items: Invalid value: must be a list/,
    );
    expect(usageError(() => runDelays(defaults(), { 'nodes.yaml': 'items: [\n' }))).to.match(
      /^invalid nodes nodes.yaml:/,
    );
    expect(usageError(() => runDelays(defaults(), {}))).to.equal('cannot read nodes nodes.yaml');
    expect(
      usageError(() =>
        runDelays(defaults({ previous: 'p.yaml' }), { 'nodes.yaml': NODES, 'p.yaml': 'node-a: soon\n' }),
      ),
    ).to.match(
      /invalid previous delays p.yaml:\n {2}- node-a: Invalid value: "soon": must be a non-negative Go duration/,
    );
    expect(usageError(() => runDelays(defaults({ min: '1x' }), { 'nodes.yaml': NODES }))).to.match(
      /^--min: time: invalid duration "1x"/,
    );
    expect(usageError(() => runDelays(defaults({ max: '-5m' }), { 'nodes.yaml': NODES }))).to.equal(
      '--max: -5m is negative',
    );
    expect(usageError(() => runDelays(defaults({ min: '10m' }), { 'nodes.yaml': NODES }))).to.equal(
      '--max: 5m is below --min 10m',
    );
  });

  it('runs as a command: reads the files, prints to stdout, defaults --min 0s --max 5m', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'delays-'));
    try {
      writeFileSync(join(dir, 'nodes.yaml'), NODES);
      const ok = await runMain(['delays', '--nodes', join(dir, 'nodes.yaml')]);
      expect(ok.code).to.equal(0);
      expect(ok.stdout).to.equal('node-a: 0s\n"true": 1m15s\nnode-c: 2m30s\nnode-b: 3m45s\n');
      expect(ok.stderr).to.match(/^gardener-osc: warning: items\[1\]\.metadata\.annotations/);
      const missing = await runMain(['delays', '--nodes', join(dir, 'absent.yaml')]);
      expect(missing.code).to.equal(2);
      expect(missing.stderr).to.equal(
        `gardener-osc: cannot read nodes ${join(dir, 'absent.yaml')}: no such file or directory (ENOENT)\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the NodeList from standard input with --nodes -, prints JSON in delay order with -o json', async () => {
    const r = await runMain(['delays', '--nodes', '-', '-o', 'json', '--log-level', 'error'], NODES);
    expect(r.code).to.equal(0);
    expect(r.stdout).to.equal(
      '{\n  "node-a": "0s",\n  "true": "1m15s",\n  "node-c": "2m30s",\n  "node-b": "3m45s"\n}\n',
    );
    expect(r.stderr, '--log-level error hides warnings').to.equal('');
    const both = await runMain(['delays', '--nodes', '-', '--previous', '-'], NODES);
    expect(both.code).to.equal(2);
    expect(both.stderr).to.contain(
      'only one option can read standard input ("-"), not --nodes and --previous',
    );
  });
});
