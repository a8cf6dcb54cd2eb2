/**
 * The recorders `--systemd` and `--disk` may name under the doubles' entry point (main.ts), on
 * top of the real ones: `record:FILE` and `record-timed:FILE` append each systemd call to FILE
 * (recording-systemd.ts), `--disk record:FILE` each format request (recording-disk.ts); and
 * `--containerd recorded:VERSION:FILE`, a containerd for a test root (recorded-containerd.ts). Their
 * fault injection comes from the environment: NODE_AGENT_TEST_SYSTEMD_FAULTS names a rules file
 * (systemd-faults.ts), NODE_AGENT_TEST_KILL_AFTER_SYSTEMD_OPS and
 * NODE_AGENT_TEST_KILL_BEFORE_SYSTEMD_OPS kill the process around the k-th call (the crash tests).
 */
import { resolve } from 'node:path';
import type { Disk } from '../../node-agent/bootstrap/disk.js';
import { type Backend, NODE_BACKENDS, type NodeBackends } from '../../node-agent/cli/backends.js';
import type { Systemd } from '../../node-agent/systemd/systemd.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { RECORDED_CONTAINERD } from './recorded-containerd.js';
import { RecordingDisk } from './recording-disk.js';
import { RecordingSystemd } from './recording-systemd.js';
import { readSystemdFaults, SYSTEMD_FAULTS_ENV } from './systemd-faults.js';

export const KILL_AFTER_SYSTEMD_OPS_ENV = 'NODE_AGENT_TEST_KILL_AFTER_SYSTEMD_OPS';
export const KILL_BEFORE_SYSTEMD_OPS_ENV = 'NODE_AGENT_TEST_KILL_BEFORE_SYSTEMD_OPS';

function opCount(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const k = Number(value);
  if (!Number.isInteger(k) || k < 1) throw new UsageError(`${name} must be a positive integer`);
  return k;
}

/** The file after `prefix`, or undefined when `spec` is not `prefix` + a file. */
function fileAfter(spec: string, prefix: string): string | undefined {
  return spec.startsWith(prefix) && spec.length > prefix.length
    ? resolve(spec.slice(prefix.length))
    : undefined;
}

function recordingSystemd(prefix: string, timestamps: boolean, help: string): Backend<Systemd> {
  return {
    form: `"${prefix}FILE"`,
    help,
    create: (spec, root, io) => {
      const file = fileAfter(spec, prefix);
      if (file === undefined) return undefined;
      const faultsFile = io.env[SYSTEMD_FAULTS_ENV];
      return new RecordingSystemd(file, {
        killAfterOps: opCount(io.env, KILL_AFTER_SYSTEMD_OPS_ENV),
        killBeforeOps: opCount(io.env, KILL_BEFORE_SYSTEMD_OPS_ENV),
        timestamps,
        root,
        ...(faultsFile ? { faults: () => readSystemdFaults(resolve(faultsFile)) } : {}),
      });
    },
  };
}

export const RECORDING_DISK: Backend<Disk> = {
  form: '"record:FILE"',
  help: '"record:FILE" to append the request to FILE',
  create: (spec) => {
    const file = fileAfter(spec, 'record:');
    return file === undefined ? undefined : new RecordingDisk(file);
  },
};

export const DOUBLE_BACKENDS: NodeBackends = {
  systemd: [
    ...NODE_BACKENDS.systemd,
    recordingSystemd('record:', false, '"record:FILE" to append each call as a JSON line to FILE'),
    recordingSystemd(
      'record-timed:',
      true,
      '"record-timed:FILE" (the same, each line with "at", the time of the call)',
    ),
  ],
  disk: [...NODE_BACKENDS.disk, RECORDING_DISK],
  containerd: [...NODE_BACKENDS.containerd, RECORDED_CONTAINERD],
};
