/**
 * A command that ends with a documented exit code other than 0 without having failed (`plan
 * --exit-code` when something changes) throws this; the executable's main returns its code and
 * prints nothing more.
 */
export class ExitStatus extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = 'ExitStatus';
  }
}
