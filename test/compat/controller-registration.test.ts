/**
 * The Gardener way to install the controller-manager, judged by Gardener v1.91.4's own code: the
 * ControllerRegistration and ControllerDeployment that `gardener-osc manifests
 * --controller-registration` prints decode strictly with gardener-apiserver's scheme and pass its
 * validation (defaulted, converted to the internal version, validated), for configurations with
 * and without os-local types; and a broken one is refused, so the judge is known to look.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { expect } from 'chai';
import { parseYaml } from '../../api/index.js';
import { manifests } from '../../cli/manifests-command.js';
import { ROOT } from '../support/package-build.js';
import { useOracle } from './support/expect-declared.js';
import { oracle } from './support/oracle.js';

type Result = { kind: string; errors: string[] };

const printed = (config: string, extra: { priorityClass?: string } = {}) =>
  manifests({
    config: isAbsolute(config) ? config : join(ROOT, config),
    namespace: 'garden',
    image: 'registry.example.org/gardener-osc:v0.1.0',
    replicas: '2',
    controllerRegistration: true,
    ...extra,
  })
    .split(/^---$/m)
    .map((d) => parseYaml(d) as Record<string, unknown>);

describe('compat: the ControllerRegistration and ControllerDeployment, by gardener-apiserver v1.91.4', () => {
  useOracle();

  const validate = (objects: Record<string, unknown>[]) =>
    oracle().ask<Result[]>('validate', { documents: objects.map((o) => JSON.stringify(o)) });

  it('the example (os-local for two types) and a priority class: no error', async () => {
    const results = await validate(
      printed('examples/controller-manager.yaml', { priorityClass: 'gardener-system-900' }),
    );
    expect(results).to.deep.equal([
      { kind: 'ControllerDeployment', errors: [] },
      { kind: 'ControllerRegistration', errors: [] },
    ]);
  });

  it('without os-local: a registration of no resources, deployed to every seed with shoots: no error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'osc-compat-registration-'));
    try {
      const config = join(dir, 'config.yaml');
      writeFileSync(
        config,
        // v1.91's shared identity: per-node identities need the authorizer (seed/manager/check-config.ts)
        'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: ControllerManagerConfiguration\nclusterSelector:\n  matchLabels:\n    a: b\nnodeAgent:\n  identity: serviceAccount\n',
      );
      const objects = printed(config);
      expect((objects[1] as { spec: object }).spec).not.to.have.property('resources');
      expect((await validate(objects)).map((r) => r.errors)).to.deep.equal([[], []]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a broken registration is refused with upstream's field paths", async () => {
    const [deployment, registration] = printed('examples/controller-manager.yaml');
    const spec = (registration as { spec: Record<string, unknown> }).spec;
    const broken = {
      ...registration,
      metadata: { name: 'Not_A_Label' },
      spec: { ...spec, deployment: { policy: 'Sometimes', deploymentRefs: [{ name: 'a' }, { name: 'b' }] } },
    };
    const [result] = await validate([broken]);
    const errors = result!.errors.join('\n');
    expect(errors).to.contain('metadata.name').and.to.contain('spec.deployment.policy');
    expect(errors).to.contain('spec.deployment.deploymentRefs');
    const [unknownField] = await validate([{ ...deployment, rollout: true }]);
    expect(unknownField!.errors.join('\n')).to.contain('unknown field "rollout"');
  });
});
