/**
 * Barriers that hold a process of the node at a point until the test lets it go: a file `NAME` in
 * the node's barrier directory arms one, the held process writes `NAME.reached`, removing `NAME`
 * releases it. The agent holds at the applier's crash points (node-agent/applier/apply-barrier.ts,
 * armed by `applyPoint`), the kubelet and valitail stand-ins in their stop, so a restart job stays
 * in flight (`unitStop`, hack/real-node/stubs). A test kills the agent while it is held, not
 * while it happens to be seen passing by.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { APPLY_BARRIERS_ENV, barrierFileName } from '../../node-agent/applier/apply-barrier.js';

/** The host directory mounted into every node at /run/real-node-host (node-under-test.ts). */
export const NODE_HOST_DIR = '/run/real-node-host';
/** Where the node's processes look for barriers (the stand-ins have this path built in). */
export const NODE_BARRIERS_DIR = `${NODE_HOST_DIR}/barriers`;

/** The agent's environment that makes it hold at armed apply points. */
export const AGENT_BARRIERS_ENV = `${APPLY_BARRIERS_ENV}=${NODE_BARRIERS_DIR}`;

/** The barrier of an applier crash point, e.g. `persisted` or `before restart kubelet.service`. */
export const applyPoint = (point: string) => barrierFileName(point);
/** The barrier in the stop of a stand-in (`kubelet`, `valitail`): its restart job stays running. */
export const unitStop = (standIn: 'kubelet' | 'valitail') => `${standIn}-stop`;

export class NodeBarriers {
  /** `hostDir`: the host side of NODE_HOST_DIR. */
  constructor(private readonly hostDir: string) {}

  private path(name: string): string {
    return join(this.hostDir, 'barriers', name);
  }

  arm(...names: string[]): void {
    mkdirSync(join(this.hostDir, 'barriers'), { recursive: true });
    for (const name of names) {
      rmSync(this.path(`${name}.reached`), { force: true });
      writeFileSync(this.path(name), '');
    }
  }

  reached(name: string): boolean {
    return existsSync(this.path(`${name}.reached`));
  }

  /** Waits until a process holds at `name`; the error says which point was never reached. */
  async held(name: string, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.reached(name)) {
      if (Date.now() > deadline)
        throw new Error(`the agent never reached the kill point "${what}" (barrier ${name})`);
      await sleep(20);
    }
  }

  release(...names: string[]): void {
    for (const name of names) {
      rmSync(this.path(name), { force: true });
      rmSync(this.path(`${name}.reached`), { force: true });
    }
  }
}
