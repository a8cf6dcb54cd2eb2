import { expect } from 'chai';
import { runCommand } from '../../../node-agent/process/run-command.js';

describe('node-agent runCommand', () => {
  it('keeps a multi-byte character whole when the child writes it in two pieces', async () => {
    // 'ü' is C3 BC, '€' is E2 82 AC: each is cut between two writes that arrive as two chunks
    const script = `
      const pieces = [[0x61, 0xc3], [0xbc, 0xe2], [0x82], [0xac, 0x0a]];
      const next = () => { const p = pieces.shift(); if (!p) return;
        process.stdout.write(Buffer.from(p)); process.stderr.write(Buffer.from(p)); setTimeout(next, 20); };
      next();`;
    const result = await runCommand(process.execPath, ['-e', script], { timeoutMs: 10_000 });
    expect(result.stdout).to.equal('aü€\n');
    expect(result.stderr).to.equal('aü€\n');
  });
});
