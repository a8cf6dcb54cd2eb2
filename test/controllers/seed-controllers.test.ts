/** Which controllers a configuration starts: beside a gardenlet that renders, ours does not. */
import { expect } from 'chai';
import { seedControllers } from '../../controllers/index.js';
import { addMigrationController } from '../../controllers/migration/add.js';
import { addOscController } from '../../controllers/operatingsystemconfig/add.js';
import { parseControllerManagerConfiguration } from '../../seed/manager/config.js';

const config = (controllers: string) => {
  const r = parseControllerManagerConfiguration(
    `apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: ControllerManagerConfiguration\nclusterSelector:\n  matchLabels:\n    a: b\nnodeAgent:\n  identity: serviceAccount\n${controllers}`,
  );
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
};

describe('seed controllers per configuration', () => {
  it('renders (and migrates) by default', () => {
    const { seed, shoot } = seedControllers(config(''));
    expect(seed).to.include(addOscController).and.to.include(addMigrationController);
    expect(shoot.length).to.be.greaterThan(0);
  });

  it('beside gardenlet (operatingSystemConfig off): no render, no migration, the shoot controllers still run', () => {
    const on = seedControllers(config(''));
    const off = seedControllers(config('controllers:\n  operatingSystemConfig: {enabled: false}\n'));
    expect(off.seed).to.not.include(addOscController).and.to.not.include(addMigrationController);
    expect(off.shoot).to.have.length(on.shoot.length);
  });
});
