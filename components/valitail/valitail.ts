/**
 * valitail ships the node's journal and Gardener's kube-system pod logs to the shoot's Vali
 * (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/valitail/component.go). Gate
 * on, the node agent installs the binary from the image and keeps the token fresh; gate off
 * (legacy), docker copies the binary and `fetch-token.sh` fetches the token.
 */
import type { OscFile, OscUnit } from '../../api/index.js';
import { b64, type Component, type ComponentContext, MODE, NO_OUTPUT } from '../component.js';
import { valitailConfig } from './config.js';
import { fetchTokenScript } from './fetch-token-script.js';
import { VALITAIL_PATH, VALITAIL_UNIT } from './paths.js';
import { fetchTokenUnitContent, valitailUnitContent } from './units.js';

export const VALITAIL_IMAGE = 'valitail';

function valitailImage(ctx: ComponentContext): string {
  const image = ctx.images[VALITAIL_IMAGE];
  if (!image) throw new Error(`image ${JSON.stringify(VALITAIL_IMAGE)} is missing`);
  return image;
}

/** Config and CA, the files both paths share, in the OSC's order. */
function configFiles(ctx: ComponentContext): OscFile[] {
  if (ctx.valiIngress === '') throw new Error('vali ingress url is missing');
  const config = valitailConfig({ valiIngress: ctx.valiIngress, apiServerUrl: ctx.apiServerUrl });
  return [
    { path: VALITAIL_PATH.config, permissions: MODE.rw, content: b64(config) },
    { path: VALITAIL_PATH.caCert, permissions: MODE.rw, content: b64(ctx.caBundle ?? '') },
  ];
}

function withNodeAgent(ctx: ComponentContext) {
  // The node agent removes what the OSC no longer lists, so "disabled" is simply "absent".
  if (!ctx.valitailEnabled) return NO_OUTPUT;
  const files: OscFile[] = [
    ...configFiles(ctx),
    {
      path: VALITAIL_PATH.binary,
      permissions: MODE.rwx,
      content: { imageRef: { image: valitailImage(ctx), filePathInImage: VALITAIL_PATH.binaryInImage } },
    },
  ];
  const units: OscUnit[] = [
    {
      name: VALITAIL_UNIT.valitail,
      command: 'start',
      enable: true,
      content: valitailUnitContent({ kind: 'node-agent' }),
      filePaths: files.map((f) => f.path),
    },
  ];
  return { units, files };
}

function legacy(ctx: ComponentContext) {
  if (!ctx.valitailEnabled) {
    // The legacy executor never removes a unit, so both stay and switch themselves off.
    return {
      units: [
        {
          name: VALITAIL_UNIT.valitail,
          command: 'start' as const,
          enable: true,
          content: valitailUnitContent({ kind: 'legacy-disabled' }),
        },
        {
          name: VALITAIL_UNIT.fetchToken,
          command: 'start' as const,
          enable: true,
          content: fetchTokenUnitContent(false),
        },
      ],
      files: [],
    };
  }
  const shared = configFiles(ctx);
  const script: OscFile = {
    path: VALITAIL_PATH.fetchTokenScript,
    permissions: MODE.script,
    content: b64(fetchTokenScript()),
  };
  return {
    units: [
      {
        name: VALITAIL_UNIT.valitail,
        command: 'start' as const,
        enable: true,
        content: valitailUnitContent({ kind: 'legacy', image: valitailImage(ctx) }),
        filePaths: shared.map((f) => f.path),
      },
      {
        name: VALITAIL_UNIT.fetchToken,
        command: 'start' as const,
        enable: true,
        content: fetchTokenUnitContent(true),
        filePaths: [script.path],
      },
    ],
    files: [...shared, script],
  };
}

export const valitail: Component = (ctx) => (ctx.useGardenerNodeAgent ? withNodeAgent(ctx) : legacy(ctx));
