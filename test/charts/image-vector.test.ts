/** The image vector: the shipped charts/images.yaml, and a landscape's vector over it (`manifests --image-vector`). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseYaml } from '../../api/index.js';
import { VERSION } from '../../api/version.js';
import { IMAGE_VECTOR, ImageVectorSchema } from '../../charts/controller-manager/image-vector.js';
import { DEFAULT_CONTROLLER_MANAGER_IMAGE, manifests } from '../../cli/manifests-command.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { ROOT } from '../support/package-build.js';

const imageOf = (text: string) => /^ {8}image: (.*)$/m.exec(text)?.[1];

describe('image vector', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'osc-image-vector-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const options = {
    config: join(ROOT, 'examples/controller-manager.yaml'),
    namespace: 'garden',
    replicas: '2',
  };

  it('ships charts/images.yaml equal to the vector the manifests use, tagged with the version', () => {
    const shipped = ImageVectorSchema.parse(
      parseYaml(readFileSync(join(ROOT, 'charts/images.yaml'), 'utf8')),
    );
    expect(shipped).to.deep.equal(IMAGE_VECTOR);
    expect(DEFAULT_CONTROLLER_MANAGER_IMAGE).to.equal(
      `europe-docker.pkg.dev/gardener-project/releases/gardener-osc:v${VERSION}`,
    );
    expect(imageOf(manifests(options))).to.equal(DEFAULT_CONTROLLER_MANAGER_IMAGE);
  });

  it("a landscape's vector replaces the image by name, in the manifests and the chart's values; --image wins", () => {
    const vector = join(dir, 'images.yaml');
    writeFileSync(
      vector,
      'images:\n- name: gardener-osc\n  repository: registry.example.org/mirror/gardener-osc\n  tag: v9\n- name: other\n  repository: x\n',
    );
    expect(imageOf(manifests({ ...options, imageVector: vector }))).to.equal(
      'registry.example.org/mirror/gardener-osc:v9',
    );
    const registration = parseYaml(
      manifests({ ...options, imageVector: vector, controllerRegistration: true }).split(/^---$/m)[0]!,
    ) as { providerConfig: { values: { image: string } } };
    expect(registration.providerConfig.values.image).to.equal('registry.example.org/mirror/gardener-osc:v9');
    expect(imageOf(manifests({ ...options, imageVector: vector, image: 'r.example/osc:v1' }))).to.equal(
      'r.example/osc:v1',
    );
  });

  it('refuses a vector that is not one, naming the field', () => {
    const vector = join(dir, 'bad.yaml');
    writeFileSync(vector, 'images:\n- name: gardener-osc\n  repo: registry.example.org/x\n');
    expect(() => manifests({ ...options, imageVector: vector }))
      .to.throw(UsageError)
      .with.property('message')
      .that.contains('images[0].repository');
  });
});
