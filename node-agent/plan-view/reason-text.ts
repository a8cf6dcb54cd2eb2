/** How the text output and the summary line say why a unit acts. */
import type { ReasonView } from './view.js';

export function reasonText(reason: ReasonView): string {
  switch (reason.kind) {
    case 'first-apply':
      return 'first apply';
    case 'new-unit':
      return 'new unit';
    case 'unit-removed':
      return 'removed from the OSC';
    case 'unit-file':
      return reason.summary ? `unit file (${reason.summary})` : 'unit file';
    case 'drop-in':
      return `drop-in ${reason.name} (${reason.change}${reason.summary ? `, ${reason.summary}` : ''})`;
    case 'file':
      return reason.summary ? `${reason.path} (${reason.summary})` : reason.path;
    case 'setting': {
      const text = (v: unknown) =>
        v === undefined ? '(unset)' : Array.isArray(v) ? `[${v.join(', ')}]` : String(v);
      return `${reason.field} ${text(reason.from)} → ${text(reason.to)}`;
    }
    case 'interrupted':
      return 'an interrupted apply touched it';
  }
}

/** Reasons that describe the unit as a whole read as a note, the others as causes. */
export function reasonsText(reasons: readonly ReasonView[]): string {
  const whole = reasons.every((r) =>
    ['first-apply', 'new-unit', 'unit-removed', 'interrupted'].includes(r.kind),
  );
  const text = reasons.map(reasonText).join(', ');
  return whole ? `(${text})` : `← ${text}`;
}
