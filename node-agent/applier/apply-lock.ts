/**
 * One apply at a time per host root in this process: the OSC controller and the drift monitor
 * (controllers/drift) both apply through applyOsc, and two applies interleaving their steps and
 * progress files would leave neither crash-safe.
 */
const tails = new Map<string, Promise<unknown>>();

export function withApplyLock<T>(root: string, run: () => Promise<T>): Promise<T> {
  const before = tails.get(root) ?? Promise.resolve();
  const result = before.then(run, run);
  const tail = result.catch(() => undefined);
  tails.set(root, tail);
  void tail.then(() => {
    if (tails.get(root) === tail) tails.delete(root);
  });
  return result;
}
