/**
 * Where systemd (the system manager) reads unit files and drop-ins from. A file of `spec.files`
 * below one of these directories is unit configuration in all but name (a drop-in of an OS unit is
 * commonly shipped that way): systemd sees it only after a daemon-reload.
 */
const UNIT_DIRECTORIES = [
  '/etc/systemd/system',
  '/etc/systemd/system.control',
  '/run/systemd/system',
  '/run/systemd/system.control',
  '/usr/local/lib/systemd/system',
  '/usr/lib/systemd/system',
  '/lib/systemd/system',
];

export function isUnitConfigurationPath(path: string): boolean {
  return UNIT_DIRECTORIES.some((dir) => path.startsWith(`${dir}/`));
}
