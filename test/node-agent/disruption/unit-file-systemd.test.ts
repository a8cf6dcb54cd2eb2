/**
 * The unit parser against systemd's own: `systemd-analyze verify` (on a file in a temp dir, nothing
 * booted) names every key it reads that it does not know, with its section. Each tricky unit below
 * has keys `Bogus*` placed where a continuation, a comment inside one, a repeated section or odd
 * whitespace decides whether systemd reads them as keys; our parser must find exactly the same.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseUnitFile } from '../../../node-agent/planner/unit-file.js';
import { SYSTEMD_ANALYZE_INSTALL_HINT } from '../../support/systemd-verify-root.js';
import { useTempDirs } from '../support/harness.js';

const TRICKY: Readonly<Record<string, string>> = {
  'continuations.service': [
    '[Unit]',
    'Description=t \\',
    '; a comment inside a continuation is dropped',
    'BogusU1=part of Description',
    ' BogusU2 = spaced  ',
    '[Service]',
    'Type=oneshot',
    'ExecStart=/bin/true',
    'Environment=A=1 \\',
    '  BogusS1=part of Environment',
    'BogusS2=\\',
    '',
    'BogusS3=z',
    '[Install]',
    'WantedBy=multi-user.target',
    'BogusI1=1',
  ].join('\n'),
  'repeated.service': [
    '[Service]',
    'Type=oneshot',
    'ExecStart=/bin/true \\',
    '# comment',
    '  # indented comment',
    '  BogusA=x',
    'BogusB=1',
    '[Unit]',
    'BogusC=2',
    '[Service]',
    'BogusD=3',
    'ExecStartPre=/bin/true',
    'ExecStartPre=/bin/true',
  ].join('\n'),
};

function systemdUnknownKeys(path: string): string[] {
  const run = spawnSync('systemd-analyze', ['verify', '--man=no', '--generators=no', path], {
    encoding: 'utf8',
  });
  if (run.error) throw new Error(`systemd-analyze is needed: ${SYSTEMD_ANALYZE_INSTALL_HINT}`);
  const keys = [...`${run.stdout}${run.stderr}`.matchAll(/Unknown key '([^']+)' in section \[([^\]]+)\]/g)];
  return keys.map(([, key, section]) => `${section}/${key}`).sort();
}

function ourBogusKeys(text: string): string[] {
  const keys: string[] = [];
  for (const [section, directives] of parseUnitFile(text))
    for (const key of directives.keys()) if (key.startsWith('Bogus')) keys.push(`${section}/${key}`);
  return keys.sort();
}

describe('node-agent disruption: the unit parser reads tricky units as systemd-analyze does', () => {
  const tempDir = useTempDirs();
  for (const [name, text] of Object.entries(TRICKY)) {
    it(name, () => {
      const path = join(tempDir(), name);
      writeFileSync(path, text);
      const theirs = systemdUnknownKeys(path);
      expect(theirs, 'systemd found no key at all: the check would prove nothing').to.not.be.empty;
      expect(ourBogusKeys(text)).to.deep.equal(theirs);
    });
  }
});
