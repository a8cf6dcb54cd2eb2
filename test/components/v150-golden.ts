/**
 * test/golden/render-v1.150/components/<name>.yaml: a v1.150.0 component's output exactly as it
 * goes into the OSC, then its base64 files decoded, so a review reads them, not base64.
 */
import { stringifyYaml } from '../../api/index.js';
import type { ComponentOutput } from '../../components/component.js';
import { expectGolden } from '../golden.js';
import { contentOf } from './support.js';

export function expectComponentGoldenV150(name: string, out: ComponentOutput): void {
  const decoded = Object.fromEntries(
    out.files.filter((f) => f.content.inline?.encoding === 'b64').map((f) => [f.path, contentOf(f)]),
  );
  const readable = Object.keys(decoded).length === 0 ? '' : `---\n${stringifyYaml({ decoded })}`;
  expectGolden(
    `render-v1.150/components/${name}.yaml`,
    `${stringifyYaml({ units: out.units, files: out.files })}${readable}`,
  );
}
