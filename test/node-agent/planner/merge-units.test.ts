import { expect } from 'chai';
import { collectAllFiles } from '../../../node-agent/planner/collect-files.js';
import { mergedUnitsOf, mergeUnits } from '../../../node-agent/planner/merge-units.js';
import '../support/harness.js';
import { oscV1 } from '../support/ntv18-fixtures.js';

// Upstream: gardener v1.91.4 pkg/nodeagent/controller/operatingsystemconfig/changes.go.
describe('node-agent planner: mergeUnits and collectAllFiles', () => {
  it('N-TV-31: unit5 merged from spec and status has both sets of drop-ins', () => {
    const unit5 = mergedUnitsOf(oscV1()).find((u) => u.name === 'unit5');
    expect(unit5).to.deep.equal({
      name: 'unit5',
      content: '#unit5',
      enable: true,
      command: 'start',
      dropIns: [
        { name: 'drop1', content: '#unit5drop1' },
        { name: 'drop2', content: '#unit5drop2' },
        { name: 'extensionsdrop', content: '#unit5extensionsdrop' },
      ],
      filePaths: [],
    });
  });

  it('orders merged units by first occurrence: spec units, then extension units', () => {
    expect(mergedUnitsOf(oscV1()).map((u) => u.name)).to.deep.equal([
      'unit1',
      'unit2',
      'unit5',
      'unit6',
      'unit7',
      'unit3',
      'unit4',
      'unit8',
      'unit9',
    ]);
  });

  it('later occurrences overwrite enable/command/content only when set, and append filePaths', () => {
    const [merged] = mergeUnits([
      { name: 'x', enable: true, command: 'start', content: 'a', filePaths: ['/a'] },
      { name: 'x', enable: false, filePaths: ['/b'] },
      { name: 'x', content: 'c' },
    ]);
    expect(merged).to.deep.equal({
      name: 'x',
      enable: false,
      command: 'start',
      content: 'c',
      dropIns: [],
      filePaths: ['/a', '/b'],
    });
  });

  it('a drop-in repeated under one name replaces the earlier one in place', () => {
    const [merged] = mergeUnits([
      {
        name: 'x',
        dropIns: [
          { name: 'a', content: '1' },
          { name: 'b', content: '2' },
        ],
      },
      { name: 'x', dropIns: [{ name: 'a', content: '3' }] },
    ]);
    expect(merged!.dropIns).to.deep.equal([
      { name: 'a', content: '3' },
      { name: 'b', content: '2' },
    ]);
  });

  it('does not modify its input', () => {
    const units = [
      { name: 'x', dropIns: [{ name: 'a', content: '1' }] },
      { name: 'x', dropIns: [{ name: 'b', content: '2' }] },
    ];
    const before = JSON.stringify(units);
    mergeUnits(units);
    expect(JSON.stringify(units)).to.equal(before);
  });

  it('collects spec files then extension files; a repeated path keeps its place and takes the last definition', () => {
    expect(collectAllFiles(oscV1()).map((f) => f.path)).to.deep.equal([
      '/example/file',
      '/third/file',
      '/changed/file',
      '/another/file',
      '/unchanged/file',
      '/sixth/file',
      '/seventh/file',
    ]);
    const osc = oscV1();
    osc.status!.extensionFiles = [
      { path: '/example/file', content: { inline: { encoding: '', data: 'ext' } } },
    ];
    const files = collectAllFiles(osc);
    expect(files.map((f) => f.path)).to.deep.equal(['/example/file', '/third/file', '/changed/file']);
    expect(files[0]!.content.inline!.data).to.equal('ext');
  });
});
