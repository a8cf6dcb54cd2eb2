/**
 * Caps the journal's age (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/journald/component.go): one
 * file per day, kept two weeks. No unit: journald reads the file on its next start, and restarting
 * it would lose in-flight log lines.
 */
import { type Component, type ComponentOutput, MODE, plain } from '../component.js';

export const JOURNALD_CONFIG_PATH = '/etc/systemd/journald.conf';

const CONTENT = '[Journal]\nMaxFileSec=24h\nMaxRetentionSec=14day\n';

/** The same in v1.91.4 and v1.150.0. */
export function journaldConfig(): ComponentOutput {
  return {
    units: [],
    files: [{ path: JOURNALD_CONFIG_PATH, permissions: MODE.rw, content: plain(CONTENT) }],
  };
}

export const journald: Component = () => journaldConfig();
