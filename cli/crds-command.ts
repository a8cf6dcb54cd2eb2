/** `gardener-osc crds`: the CustomResourceDefinitions a seed needs for the objects we write. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { CRD_FILES, renderCrdFile } from '../api/crds.js';
import { makeDirectories } from '../runtime/cli/output-directory.js';
import type { CliLogLevel, Notices } from '../runtime/cli/warnings.js';

export interface CrdsIo {
  readonly stdout: { write(text: string): unknown };
  readonly notices: Notices;
}

export function addCrdsCommand(program: Command, io: (level?: CliLogLevel) => CrdsIo): void {
  program
    .command('crds')
    .description('print the CRDs of OperatingSystemConfig, Cluster and ManagedResource (multi-document YAML)')
    .option('--output <dir>', 'write one file per CRD into this directory instead of stdout')
    .action((options: { output?: string; logLevel?: CliLogLevel }) => {
      const { stdout, notices } = io(options.logLevel);
      const names = Object.keys(CRD_FILES);
      if (options.output) {
        makeDirectories(options.output);
        for (const name of names) {
          writeFileSync(join(options.output, name), renderCrdFile(name));
          notices.info(`wrote ${join(options.output, name)}`);
        }
        return;
      }
      stdout.write(names.map((name) => renderCrdFile(name)).join('---\n'));
    });
}
