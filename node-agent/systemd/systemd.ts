/**
 * What the node agent asks of systemd (node-side §13). Unit names are passed verbatim. start, stop
 * and restart wait for the job (at most a bounded time, see the systemctl implementation).
 */
export interface Systemd {
  daemonReload(): Promise<void>;
  enable(units: readonly string[]): Promise<void>;
  disable(units: readonly string[]): Promise<void>;
  start(unit: string): Promise<void>;
  stop(unit: string): Promise<void>;
  restart(unit: string): Promise<void>;
}

export type SystemdUnitOp = 'enable' | 'disable' | 'start' | 'stop' | 'restart';

/** One call as the recorders log it; enable and disable are one op per unit. */
export type SystemdOp =
  | { readonly op: 'daemon-reload' }
  | { readonly op: SystemdUnitOp; readonly unit: string };
