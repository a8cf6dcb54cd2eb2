/**
 * Names the agent writes to disk or hands to systemd must not hold control characters: a newline
 * in a unit name splits the line of a `systemctl` call or of a unit listing, one in a path the
 * line of a log or of the `apply-progress.yaml` journal, and an escape sequence rewrites the
 * operator's terminal when the name is printed. The schema (api/schema/host-path.ts) keeps
 * upstream's rule (any character but NUL and "/"), so the node refuses them here, before anything
 * is written, naming the field (docs/compatibility.md N28).
 */
import type { FieldError, OperatingSystemConfig, OscFile, OscUnit } from '../../api/index.js';

/** C0 controls, DEL and C1 controls (U+0080–U+009F), which terminals also act on. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function problem(value: string): string | undefined {
  const match = CONTROL.exec(value);
  if (!match) return undefined;
  const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return `must not contain control characters (U+${code} at index ${match.index})`;
}

function fileErrors(files: readonly OscFile[] | undefined, list: string): FieldError[] {
  return (files ?? []).flatMap((f, i) => {
    const detail = problem(f.path);
    return detail ? [{ type: 'Invalid' as const, field: `${list}[${i}].path`, detail, value: f.path }] : [];
  });
}

function unitErrors(units: readonly OscUnit[] | undefined, list: string): FieldError[] {
  return (units ?? []).flatMap((u, i) => {
    const errors: FieldError[] = [];
    const detail = problem(u.name);
    if (detail) errors.push({ type: 'Invalid', field: `${list}[${i}].name`, detail, value: u.name });
    (u.dropIns ?? []).forEach((d, j) => {
      const dropIn = problem(d.name);
      if (dropIn)
        errors.push({
          type: 'Invalid',
          field: `${list}[${i}].dropIns[${j}].name`,
          detail: dropIn,
          value: d.name,
        });
    });
    return errors;
  });
}

export function controlCharacterProblems(osc: OperatingSystemConfig): FieldError[] {
  return [
    ...fileErrors(osc.spec.files, 'spec.files'),
    ...fileErrors(osc.status?.extensionFiles, 'status.extensionFiles'),
    ...unitErrors(osc.spec.units, 'spec.units'),
    ...unitErrors(osc.status?.extensionUnits, 'status.extensionUnits'),
  ];
}
