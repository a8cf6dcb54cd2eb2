/**
 * `files[].hostName` (the v1.150.0 contract): a file with a host name is written only on the node
 * of that (lower-cased) hostname; the others drop it, from the new and the last applied OSC alike,
 * so the diff compares like with like (gardener v1.150.0
 * pkg/nodeagent/controller/operatingsystemconfig/changes.go `CollectAllFiles`). OSCs of the
 * v1.91.4 contract carry no host names and pass unchanged.
 */
import type { OperatingSystemConfig, OscFile } from '../../api/index.js';

function onThisHost(files: readonly OscFile[] | undefined, hostName: string): OscFile[] | undefined {
  return files?.filter((f) => f.hostName === undefined || f.hostName === hostName);
}

function hasForeignFile(files: readonly OscFile[] | undefined, hostName: string): boolean {
  return files?.some((f) => f.hostName !== undefined && f.hostName !== hostName) ?? false;
}

/** The OSC as this host applies it (the same object when nothing is left out). */
export function oscForHost(osc: OperatingSystemConfig, hostName: string): OperatingSystemConfig {
  const spec = osc.spec.files;
  const status = osc.status?.extensionFiles;
  if (!hasForeignFile(spec, hostName) && !hasForeignFile(status, hostName)) return osc;
  return {
    ...osc,
    spec: { ...osc.spec, files: onThisHost(spec, hostName) },
    ...(osc.status ? { status: { ...osc.status, extensionFiles: onThisHost(status, hostName) } } : {}),
  };
}
