import { expect } from 'chai';
import { journald } from '../../../components/journald/journald.js';
import { componentContext, expectComponentGolden } from '../support.js';

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/original/components/journald/component.go
// (S-TV-17).
describe('components/journald', () => {
  it('writes journald.conf as plain text and no unit', () => {
    expect(journald(componentContext())).to.deep.equal({
      units: [],
      files: [
        {
          path: '/etc/systemd/journald.conf',
          permissions: 420,
          content: { inline: { encoding: '', data: '[Journal]\nMaxFileSec=24h\nMaxRetentionSec=14day\n' } },
        },
      ],
    });
  });

  it('is the same with and without the node agent', () => {
    expect(journald(componentContext({ useGardenerNodeAgent: false }))).to.deep.equal(
      journald(componentContext()),
    );
  });

  it('matches the golden file', () => {
    expectComponentGolden('journald', journald(componentContext()));
  });
});
