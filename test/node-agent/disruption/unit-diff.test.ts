import { expect } from 'chai';
import { unitDiff } from '../../../node-agent/planner/unit-diff.js';
import { parseUnitFile, parseUnitWithDropIns } from '../../../node-agent/planner/unit-file.js';
import '../support/harness.js';

const BASE = [
  '[Unit]',
  'Description=containerd container runtime',
  'After=network.target',
  '[Service]',
  'ExecStartPre=/sbin/modprobe overlay',
  'ExecStart=/usr/bin/containerd',
  'Restart=always',
  '[Install]',
  'WantedBy=multi-user.target',
].join('\n');

const diffOf = (before: string, after: string) => unitDiff(parseUnitFile(before), parseUnitFile(after));

describe('node-agent disruption: the semantic unit diff', () => {
  const cases: readonly (readonly [string, string, string, string])[] = [
    ['a comment added', `# managed by gardener\n${BASE}\n; trailing`, 'None', 'no effective change'],
    [
      'whitespace and blank lines',
      BASE.replace('Restart=always', '  Restart =  always  \n\n'),
      'None',
      'no effective change',
    ],
    [
      'distinct directives reordered',
      BASE.replace(
        'ExecStart=/usr/bin/containerd\nRestart=always',
        'Restart=always\nExecStart=/usr/bin/containerd',
      ),
      'None',
      'no effective change',
    ],
    [
      'an argument added on a continuation line',
      BASE.replace('ExecStart=/usr/bin/containerd', 'ExecStart=/usr/bin/containerd \\\n    --log-level=info'),
      'Restart',
      '[Service] ExecStart',
    ],
    [
      'a section split in two',
      BASE.replace('Restart=always', '[Service]\nRestart=always'),
      'None',
      'no effective change',
    ],
    [
      '[Install] only',
      BASE.replace('WantedBy=multi-user.target', 'WantedBy=multi-user.target\nAlias=ctrd.service'),
      'None',
      '[Install] only',
    ],
    ['Description only', BASE.replace('container runtime', 'runtime'), 'DaemonReload', '[Unit] Description'],
    [
      'ExecStart changed',
      BASE.replace('/usr/bin/containerd', '/usr/local/bin/containerd'),
      'Restart',
      '[Service] ExecStart',
    ],
    [
      'an accumulating directive reordered',
      BASE.replace(
        'ExecStartPre=/sbin/modprobe overlay',
        'ExecStartPre=/bin/true\nExecStartPre=/sbin/modprobe overlay',
      ),
      'Restart',
      '[Service] ExecStartPre',
    ],
    [
      'After= changed',
      BASE.replace('After=network.target', 'After=network-online.target'),
      'Restart',
      '[Unit] After',
    ],
  ];
  for (const [name, after, action, summary] of cases) {
    it(`${name} → ${action} (${summary})`, () => {
      const diff = diffOf(BASE, after);
      expect(diff.action).to.equal(action);
      expect(diff.summary).to.equal(summary);
    });
  }

  it('sees a command line re-wrapped over continuation lines as no change', () => {
    const one = parseUnitFile(
      '[Service]\nExecStart=/usr/bin/containerd --log-level=info --config /etc/c.toml',
    );
    const wrapped = parseUnitFile(
      '[Service]\nExecStart=/usr/bin/containerd \\\n    --log-level=info \\\n    --config /etc/c.toml',
    );
    expect(unitDiff(one, wrapped).summary).to.equal('no effective change');
  });

  it('keeps the order of repeated directives that accumulate, and an empty assignment resets them', () => {
    const parsed = parseUnitFile(
      '[Service]\nExecStartPre=/a\nExecStartPre=/b\nEnvironment=A=1\nExecStartPre=\nExecStartPre=/c',
    );
    expect(parsed.get('Service')?.get('ExecStartPre')).to.deep.equal(['/c']);
    const twice = parseUnitFile('[Service]\nEnvironment=A=1\nEnvironment=B=2');
    expect(twice.get('Service')?.get('Environment')).to.deep.equal(['A=1', 'B=2']);
  });

  it('joins a continuation with a space and drops comment lines inside it, as systemd.syntax(7) says', () => {
    const parsed = parseUnitFile(
      '[Service]\nExecStart=/bin/echo \\\n# not part of it\n  one \\\n  two\nUser=root',
    );
    expect(parsed.get('Service')?.get('ExecStart')).to.deep.equal(['/bin/echo one two']);
    expect(parsed.get('Service')?.get('User')).to.deep.equal(['root']);
  });

  it('keeps whitespace inside quotes and in values that are not word lists', () => {
    const a = parseUnitFile('[Service]\nExecStart=/bin/echo "a  b"\nEnvironment="X=a  b"');
    const b = parseUnitFile('[Service]\nExecStart=/bin/echo "a b"\nEnvironment="X=a b"');
    const diff = unitDiff(a, b);
    expect(diff.changes.map((c) => c.key)).to.deep.equal(['Environment', 'ExecStart']);
  });

  it('applies drop-ins after the unit file in the order of their names, whatever the OSC order', () => {
    const unit = '[Service]\nExecStart=/bin/a';
    const first = parseUnitWithDropIns(unit, [
      { name: '20-b.conf', content: '[Service]\nExecStart=\nExecStart=/bin/b' },
      { name: '10-a.conf', content: '[Service]\nEnvironment=A=1' },
    ]);
    const second = parseUnitWithDropIns(unit, [
      { name: '10-a.conf', content: '# same, reordered\n[Service]\nEnvironment=A=1' },
      { name: '20-b.conf', content: '[Service]\nExecStart=\nExecStart=/bin/b' },
    ]);
    expect(unitDiff(first, second).action).to.equal('None');
    expect(first.get('Service')?.get('ExecStart')).to.deep.equal(['/bin/b']);
  });

  it('sees a drop-in moved into the unit file as no change, and its removal as one', () => {
    const split = parseUnitWithDropIns('[Service]\nExecStart=/bin/a', [
      { name: 'x.conf', content: '[Service]\nUser=u' },
    ]);
    const merged = parseUnitWithDropIns('[Service]\nExecStart=/bin/a\nUser=u', []);
    const without = parseUnitWithDropIns('[Service]\nExecStart=/bin/a', []);
    expect(unitDiff(split, merged).action).to.equal('None');
    expect(unitDiff(split, without).action).to.equal('Restart');
  });
});
