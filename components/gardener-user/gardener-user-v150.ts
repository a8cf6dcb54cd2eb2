/**
 * The `gardener` user in the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/gardeneruser, since v1.109.0,
 * gardener #10671): v1.91.4's unit, files and script, plus `gardener-user.path`, which reruns the
 * user's setup whenever the authorized keys change. `run.sh` stays ours (docs/compatibility.md
 * V150-2).
 */
import type { ComponentContext, ComponentOutput } from '../component.js';
import { GARDENER_USER_PATH, gardenerUser } from './gardener-user.js';

export const GARDENER_USER_PATH_UNIT = 'gardener-user.path';

const PATH_UNIT_CONTENT = `[Path]
PathChanged=${GARDENER_USER_PATH.authorizedKeys}
[Install]
WantedBy=multi-user.target
`;

export function gardenerUserV150(
  ctx: Pick<ComponentContext, 'sshAccessEnabled' | 'sshPublicKeys'>,
): ComponentOutput {
  if (!ctx.sshAccessEnabled) return { units: [], files: [] };
  const v191 = gardenerUser(ctx as ComponentContext);
  return {
    units: [...v191.units, { name: GARDENER_USER_PATH_UNIT, enable: true, content: PATH_UNIT_CONTENT }],
    files: v191.files,
  };
}
