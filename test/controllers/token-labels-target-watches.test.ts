import { expect } from 'chai';
import { ANNOTATION, LABEL, LABEL_VALUE } from '../../api/index.js';
import type { TargetSecret } from '../../controllers/token-labels/decide.js';
import { TargetWatches } from '../../controllers/token-labels/target-watches.js';
import type { KubeObject } from '../../runtime/kube/list-watch.js';
import { silentLogger } from '../../runtime/logging.js';

const accessSecret = (namespace: string, name: string, target: Record<string, string>): KubeObject =>
  ({
    metadata: {
      namespace,
      name,
      labels: {
        [LABEL.tokenRequestorPurpose]: LABEL_VALUE.purposeTokenRequestor,
        [LABEL.resourceClass]: LABEL_VALUE.classShoot,
      },
      annotations: target,
    },
  }) as KubeObject;

const targeting = (namespace: string, name: string, secretNamespace: string, secretName: string) =>
  accessSecret(namespace, name, {
    [ANNOTATION.targetSecretNamespace]: secretNamespace,
    [ANNOTATION.targetSecretName]: secretName,
  });

function fixture(seed: KubeObject[]) {
  const started: string[] = [];
  const ended: string[] = [];
  const problems: string[] = [];
  const counts: number[] = [];
  const watches = new TargetWatches({
    namespace: 'shoot--a--b',
    seedSecrets: { list: () => seed },
    watchTarget: (_target: TargetSecret, key: string) => {
      started.push(key);
      return {
        informer: {
          get: (name, namespace) => ({ metadata: { name, namespace } }),
          waitForSync: () => Promise.resolve(),
        },
        stop: () => ended.push(key),
      };
    },
    onProblem: (p) => problems.push(p),
    onCount: (n) => counts.push(n),
    log: silentLogger,
  });
  return { watches, started, ended, problems, counts };
}

describe('token-labels target watches', () => {
  it('watches each target of its own namespace once, and ends the watch of a former target', () => {
    const seed = [
      targeting('shoot--a--b', 'one', 'kube-system', 'x'),
      targeting('shoot--a--b', 'two', 'kube-system', 'y'),
      targeting('shoot--other', 'three', 'kube-system', 'z'),
    ];
    const f = fixture(seed);
    f.watches.update();
    f.watches.update();
    expect(f.started).to.deep.equal(['kube-system/x', 'kube-system/y']);
    expect([...f.watches.targets().keys()]).to.deep.equal(['kube-system/x', 'kube-system/y']);
    expect(f.watches.secret('kube-system/y')?.metadata?.name).to.equal('y');
    seed.splice(1, 1);
    f.watches.update();
    expect(f.ended).to.deep.equal(['kube-system/y']);
    expect(f.watches.target('kube-system/y')).to.equal(undefined);
    expect(f.counts).to.deep.equal([2, 2, 1]);
  });

  it('reports a problem once while it lasts, and again when it comes back', () => {
    const bad = accessSecret('shoot--a--b', 'bad', { [ANNOTATION.targetSecretName]: 'x' });
    const seed = [bad];
    const f = fixture(seed);
    f.watches.update();
    f.watches.update();
    expect(f.problems).to.have.length(1);
    seed.pop();
    f.watches.update();
    seed.push(bad);
    f.watches.update();
    expect(f.problems).to.have.length(2);
  });

  it('concerns only secrets of its namespace, and does nothing once stopped', () => {
    const seed = [targeting('shoot--a--b', 'one', 'kube-system', 'x')];
    const f = fixture(seed);
    expect(f.watches.concerns(seed[0]!)).to.equal(true);
    expect(f.watches.concerns(targeting('shoot--other', 'one', 'kube-system', 'x'))).to.equal(false);
    f.watches.update();
    f.watches.stop();
    expect(f.ended).to.deep.equal(['kube-system/x']);
    seed.push(targeting('shoot--a--b', 'two', 'kube-system', 'y'));
    f.watches.update();
    expect(f.started).to.deep.equal(['kube-system/x']);
  });
});
