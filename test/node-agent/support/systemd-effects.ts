/**
 * Reading systemd call records (`restart x.service`, `stop y.service`, ...) for their effect: a
 * stop of a unit that is not running does nothing, so an apply resumed after a crash may skip it.
 * Units start out not running, as in the simulated systemd.
 */
export const isUnitCommand = (op: string): boolean => op.startsWith('restart ') || op.startsWith('stop ');

/** The calls from index `from` on, without the stops that found their unit already stopped. */
export function withoutNoOpStops(ops: readonly string[], from = 0): string[] {
  const running = new Set<string>();
  return ops.filter((op, i) => {
    const [verb, unit = ''] = op.split(' ');
    if (verb === 'start' || verb === 'restart') running.add(unit);
    const effective = verb !== 'stop' || running.delete(unit);
    return effective && i >= from;
  });
}

/**
 * `actual` is `expected`, or `expected` with one enable, disable or daemon-reload repeated right
 * after itself (a call cut off by a crash). A restart or stop is never repeated.
 */
export function equalButOneIdempotentRepeat(actual: readonly string[], expected: readonly string[]): boolean {
  const same = (x: readonly string[]) => JSON.stringify(x) === JSON.stringify(expected);
  if (same(actual)) return true;
  return (
    actual.length === expected.length + 1 &&
    actual.some(
      (op, i) => i > 0 && op === actual[i - 1] && !isUnitCommand(op) && same(actual.toSpliced(i, 1)),
    )
  );
}
