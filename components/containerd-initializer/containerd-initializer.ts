/**
 * Runs `init-containerd` before containerd starts (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/containerd/initializer.go): a
 * oneshot unit plus a drop-in that makes containerd.service require it.
 */
import { b64, type Component, type ComponentContext, MODE, plain } from '../component.js';
import { initContainerdScript } from './init-script.js';

export const PAUSE_CONTAINER_IMAGE = 'pause-container';

export const CONTAINERD_INITIALIZER_PATH = {
  script: '/opt/bin/init-containerd',
  requireDropIn: '/etc/systemd/system/containerd.service.d/10-require-containerd-initializer.conf',
  runtimeBinDir: '/var/bin/containerruntimes',
} as const;

export const CONTAINERD_INITIALIZER_UNIT = 'containerd-initializer.service';

/**
 * (quirk) Upstream writes the Go literal `744` without the leading zero: decimal 744 is octal 1350
 * (sticky bit, owner -wx, group r-x, others none). It is kept on purpose (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/containerd/initializer.go) because the
 * permission is part of the OSC checksum; systemd runs the script as root, which may read any file,
 * and the owner's execute bit is set, so it still runs.
 */
export const INIT_CONTAINERD_PERMISSIONS = 744;

const UNIT_CONTENT = [
  '[Unit]',
  'Description=Containerd initializer',
  '[Install]',
  'WantedBy=multi-user.target',
  '[Service]',
  'Type=oneshot',
  'RemainAfterExit=yes',
  `ExecStart=${CONTAINERD_INITIALIZER_PATH.script}`,
].join('\n');

const REQUIRE_DROP_IN = `[Unit]\nAfter=${CONTAINERD_INITIALIZER_UNIT}\nRequires=${CONTAINERD_INITIALIZER_UNIT}`;

/** An image reference goes into a TOML string: only the characters references consist of. */
const IMAGE_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/;

function pauseImage(ctx: ComponentContext): string {
  const image = ctx.images[PAUSE_CONTAINER_IMAGE];
  if (!image) throw new Error(`image ${JSON.stringify(PAUSE_CONTAINER_IMAGE)} is missing`);
  if (!IMAGE_REFERENCE.test(image))
    throw new Error(
      `image ${JSON.stringify(PAUSE_CONTAINER_IMAGE)} is not a valid reference: ${JSON.stringify(image)}`,
    );
  return image;
}

export const containerdInitializer: Component = (ctx) => ({
  // No filePaths, as upstream: a changed script takes effect at containerd's next start.
  units: [{ name: CONTAINERD_INITIALIZER_UNIT, command: 'start', enable: true, content: UNIT_CONTENT }],
  files: [
    {
      path: CONTAINERD_INITIALIZER_PATH.script,
      permissions: INIT_CONTAINERD_PERMISSIONS,
      content: b64(
        initContainerdScript({
          pauseImage: pauseImage(ctx),
          runtimeBinDir: CONTAINERD_INITIALIZER_PATH.runtimeBinDir,
        }),
      ),
    },
    {
      path: CONTAINERD_INITIALIZER_PATH.requireDropIn,
      permissions: MODE.rw,
      content: plain(REQUIRE_DROP_IN),
    },
  ],
});
