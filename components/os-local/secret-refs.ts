/**
 * For OS extensions that read secrets asynchronously (from the seed's API server): inline every
 * `secretRef` file of an OSC before rendering, as gardenlet does for the node agent's OSC secret
 * (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/secrets.go:
 * `inline{encoding: b64}`, the reference dropped). renderUserData stays pure.
 */
import type { FieldError, OperatingSystemConfig, OscFile } from '../../api/index.js';
import { UserDataError } from './user-data.js';

export type AsyncSecretRefResolver = (
  ref: { readonly name: string; readonly dataKey: string },
  file: OscFile,
) => Promise<Uint8Array | string | undefined>;

/** A copy of `osc` whose `spec.files` hold no secretRef; throws UserDataError naming missing secrets. */
export async function inlineSecretRefs(
  osc: OperatingSystemConfig,
  resolve: AsyncSecretRefResolver,
): Promise<OperatingSystemConfig> {
  const copy = structuredClone(osc);
  const errors: FieldError[] = [];
  await Promise.all(
    (copy.spec.files ?? []).map(async (file, i) => {
      const ref = file.content.secretRef;
      if (!ref) return;
      const data = await resolve(ref, file);
      if (data === undefined) {
        errors.push({
          type: 'Invalid',
          field: `spec.files[${i}].content.secretRef`,
          detail: `secret ${JSON.stringify(ref.name)} has no key ${JSON.stringify(ref.dataKey)}`,
        });
        return;
      }
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
      const { secretRef: _, ...rest } = file.content;
      file.content = { ...rest, inline: { encoding: 'b64', data: bytes.toString('base64') } };
    }),
  );
  if (errors.length > 0) {
    errors.sort((a, b) => a.field.localeCompare(b.field, 'en', { numeric: true }));
    throw new UserDataError(osc.metadata?.name ?? '', errors);
  }
  return copy;
}
