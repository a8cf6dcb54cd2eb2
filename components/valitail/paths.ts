/**
 * Where valitail's pieces live on the node (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/valitail/component.go).
 */
import { PATH } from '../../api/index.js';

const DIR = '/var/lib/valitail';

export const VALITAIL_PATH = {
  config: `${DIR}/config/config`,
  caCert: `${DIR}/ca.crt`,
  /** Written by the node agent's token controller (gate on) or by fetch-token.sh (gate off). */
  authToken: PATH.valitailAuthToken,
  fetchTokenScript: `${DIR}/scripts/fetch-token.sh`,
  binary: `${PATH.binaryDir}/valitail`,
  /** Where the valitail image keeps its binary. */
  binaryInImage: '/usr/bin/valitail',
} as const;

export const VALITAIL_UNIT = {
  valitail: 'valitail.service',
  fetchToken: 'valitail-fetch-token.service',
} as const;
