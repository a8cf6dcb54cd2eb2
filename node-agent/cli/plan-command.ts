/** `plan --next B.yaml [--previous A.yaml]`: prints what an apply from A to B would do, as YAML. */
import type { Command } from 'commander';
import { stringifyYaml } from '../../api/index.js';
import { computePlan } from '../planner/compute-plan.js';
import type { CliIo } from './cli-io.js';
import { readOsc } from './read-osc.js';

interface PlanFlags {
  readonly previous?: string;
  readonly next: string;
}

export function addPlanCommand(program: Command, io: CliIo): void {
  program
    .command('plan')
    .description('print the plan from one osc.yaml to the next (no previous: a first apply)')
    .option('--previous <file>', 'the osc.yaml applied last')
    .requiredOption('--next <file>', 'the osc.yaml to apply')
    .action((flags: PlanFlags) => {
      const previous = flags.previous === undefined ? undefined : readOsc('--previous', flags.previous).osc;
      const next = readOsc('--next', flags.next).osc;
      io.stdout.write(stringifyYaml(computePlan(previous, next)));
    });
}
