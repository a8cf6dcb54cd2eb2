/**
 * The controller-manager's RBAC, seed and shoot, as golden files reviewed like code: no wildcard
 * anywhere, and every rule that is not narrowed to names says why.
 */
import { expect } from 'chai';
import { stringifyYaml } from '../../api/index.js';
import {
  CONTROLLER_MANAGER_NAME,
  controllerManagerObjects,
  seedClusterRole,
  shootClusterRole,
} from '../../charts/controller-manager/controller-manager.js';
import { RULE_REASONS_ANNOTATION } from '../../charts/controller-manager/rule.js';
import { seedRules } from '../../charts/controller-manager/seed-rbac.js';
import { shootRules } from '../../charts/controller-manager/shoot-rbac.js';
import { expectGolden } from '../golden.js';

describe('controller-manager chart', () => {
  const ruleSets = {
    seed: seedRules(CONTROLLER_MANAGER_NAME),
    'shoot (managedResource)': shootRules('managedResource'),
    'shoot (direct)': shootRules('direct'),
  };

  for (const [name, rules] of Object.entries(ruleSets)) {
    it(`${name}: no wildcard, and a reason beside every rule without resourceNames`, () => {
      for (const rule of rules) {
        for (const field of [rule.apiGroups, rule.resources, rule.verbs, rule.resourceNames ?? []])
          expect(field, JSON.stringify(rule)).to.not.include('*');
        if (!rule.resourceNames) expect(rule.reason.length, JSON.stringify(rule)).to.be.greaterThan(20);
      }
    });
  }

  it('renders the seed RBAC rules (golden)', () => {
    expectGolden(
      'controller-manager/seed-clusterrole.yaml',
      stringifyYaml(seedClusterRole(CONTROLLER_MANAGER_NAME)),
    );
  });

  it('renders the documented minimum shoot role for direct mode (golden)', () => {
    expectGolden(
      'controller-manager/shoot-clusterrole-direct.yaml',
      stringifyYaml(shootClusterRole('direct')),
    );
  });

  it('keeps the reasons in an annotation, one line per rule, in rule order', () => {
    const role = seedClusterRole(CONTROLLER_MANAGER_NAME);
    const lines = role.metadata.annotations[RULE_REASONS_ANNOTATION].split('\n');
    expect(lines).to.have.length(role.rules.length);
    expect(lines[0]).to.match(/^0: extensions\.gardener\.cloud\/clusters \[get,list,watch,patch\]: /);
  });

  it('deploys two replicas with leader election, probes and the mounted configuration', () => {
    const objects = controllerManagerObjects({
      namespace: 'garden',
      image: 'example.org/gardener-osc:v0.1.0',
      config: { leaderElection: { name: 'gardener-osc-controller-manager' } },
    });
    expect(objects.map((o) => o.kind)).to.deep.equal([
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
    ]);
    const deployment = objects[4] as {
      spec: { replicas: number; template: { spec: { containers: { args: string[] }[] } } };
    };
    expect(deployment.spec.replicas).to.equal(2);
    expect(deployment.spec.template.spec.containers[0]?.args).to.deep.equal([
      'controller-manager',
      '--config=/etc/gardener-osc/config.yaml',
    ]);
  });
});
