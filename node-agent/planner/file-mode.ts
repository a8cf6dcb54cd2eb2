/**
 * The mode an OSC file is written with (gardener v1.91.4
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go): its `permissions`, or 0600
 * without. One definition for the applier that writes the file and the plan that shows it, so both
 * agree.
 */
import type { OscFile } from '../../api/index.js';

/** An OSC file without `permissions`. */
export const DEFAULT_FILE_MODE = 0o600;

/**
 * Only the permission bits, as Go's os.FileMode when upstream's agent writes the file: the setuid,
 * setgid and sticky bits of an OSC (0o4755, or gardenlet's `permissions: 744`, decimal for 0o1350)
 * never reach the file, so a node agent never creates a setuid file from an OSC.
 */
export function fileModeOf(file: Pick<OscFile, 'permissions'>): number {
  return (file.permissions ?? DEFAULT_FILE_MODE) & 0o777;
}
