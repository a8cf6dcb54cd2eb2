/** The shapes of hack/prepare/prerequisites.ts: Debian packages and cold builds, one line each. */

export interface Package {
  /** The Debian package. */
  readonly deb: string;
  /** The command whose presence means the package is installed. */
  readonly command: string;
  /** What the tests use it for (shown when it is missing). */
  readonly why: string;
}

export interface Build {
  readonly name: string;
  /** A script (`.sh` runs with bash, `.mjs` with node, `.ts` with node --import tsx) and its arguments. */
  readonly argv: readonly string[];
  readonly why: string;
  /** Needs the Go toolchain (GO_MINIMUM). */
  readonly go: boolean;
  /** Debian packages only this build needs. */
  readonly packages: readonly Package[];
  /** Also needed by `npm run test:unit` (else only by `npm test`). */
  readonly unit: boolean;
  /** A failure may be stale package lists: as root with apt, run `apt-get update` and try once more. */
  readonly retryAfterAptUpdate: boolean;
  /**
   * Only tests that run late in `npm test` need it, and they run its script themselves in a
   * `before` hook with a long timeout (waiting on the build's lock): prepare starts it in the
   * background and lets the tests start (hack/prepare/background.ts).
   */
  readonly late: boolean;
}

export function debian(deb: string, options: { command?: string; why?: string } = {}): Package {
  return { deb, command: options.command ?? deb, why: options.why ?? '' };
}

export function build(
  name: string,
  command: string,
  options: {
    why: string;
    go?: boolean;
    packages?: readonly (string | Package)[];
    unit?: boolean;
    retryAfterAptUpdate?: boolean;
    late?: boolean;
  },
): Build {
  return {
    name,
    argv: command.split(/\s+/).filter(Boolean),
    why: options.why,
    go: options.go ?? false,
    packages: (options.packages ?? []).map((p) =>
      typeof p === 'string' ? debian(p, { why: `needed by the ${name} build` }) : p,
    ),
    unit: options.unit ?? false,
    retryAfterAptUpdate: options.retryAfterAptUpdate ?? false,
    late: options.late ?? false,
  };
}
