/**
 * The reference rendering of an OperatingSystemConfig into user data (os-local): what Gardener's
 * generic OS extension (`extensions/pkg/controller/operatingsystemconfig/bash.go`, used by
 * provider-local and the OS extensions) does, as a bash script of our own.
 *
 * The script writes every file of `spec.files`, then every unit of `spec.units` with its drop-ins
 * to /etc/systemd/system, reloads systemd and, for the `provision` purpose, enables/disables and
 * restarts/stops each unit and records that it ran, so a reboot does not apply it again. For the
 * `reconcile` purpose it is the `cloud_config` the legacy executor runs through `status.command`,
 * which enables and restarts `status.units` itself (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/executor/executor.go), so it writes files only.
 *
 * The same OSC renders the same bytes. Only files with `transmitUnencoded` appear as plain text
 * (machine-controller-manager replaces `<<BOOTSTRAP_TOKEN>>` in the user data by plain string
 * substitution); every other content, units and drop-ins included, travels base64-encoded, so a
 * placeholder inside it is never touched.
 */
import { createHash } from 'node:crypto';
import {
  type FieldError,
  fieldErrorsFromZod,
  formatFieldErrors,
  type OperatingSystemConfig,
  OSC_PURPOSES,
  type OscFile,
  type OscSpec,
  type OscUnit,
  TolerantOsc,
} from '../../api/index.js';
import { shellQuote } from '../shell-quote.js';

/** Where units and their drop-in directories go. */
export const UNIT_DIRECTORY = '/etc/systemd/system';
/** Written last by provision user data; when present, the user data exits at once (reboots). */
export const PROVISION_MARKER = '/var/lib/osc/provision-osc-applied';
/** Environment variable prefixed to every path the script writes: empty on a node. */
export const ROOT_VARIABLE = 'OSC_LOCAL_ROOT';
/** A file without `permissions` (extensionsv1alpha1.OperatingSystemConfigDefaultFilePermission). */
export const DEFAULT_FILE_PERMISSIONS = 0o644;
/** Unit files and drop-ins, as systemd expects them. */
export const UNIT_FILE_PERMISSIONS = 0o644;

/** What a secret holds for a `secretRef` file; `undefined` when the secret or its key is missing. */
export type SecretRefResolver = (
  ref: { readonly name: string; readonly dataKey: string },
  file: OscFile,
) => Uint8Array | string | undefined;

export interface UserDataOptions {
  /**
   * Contents of `secretRef` files. gardenlet inlines them only into the OSC secret it ships to the
   * node agent; in the OSC object an OS extension reads they are references to secrets in the OSC's
   * seed namespace, so without a resolver such a file is an error.
   */
  readonly resolveSecretRef?: SecretRefResolver;
}

/** Rendering failed; `errors` names every offending field. */
export class UserDataError extends Error {
  constructor(
    readonly oscName: string,
    readonly errors: readonly FieldError[],
  ) {
    super(`cannot render user data of OperatingSystemConfig ${oscName}:\n${formatFieldErrors(errors)}`);
    this.name = 'UserDataError';
  }
}

type Content = { kind: 'bytes'; bytes: Buffer; text: boolean } | { kind: 'image'; image: string };

/** The user data (`cloud_config`) of an OSC of either purpose. Throws UserDataError on bad input. */
export function renderUserData(osc: OperatingSystemConfig, options: UserDataOptions = {}): string {
  const name = osc.metadata?.name ?? '';
  const spec = validSpec(osc, name);
  const errors: FieldError[] = [];
  const provision = spec.purpose === 'provision';
  const files = (spec.files ?? []).map((file, i) =>
    contentOf(file, `spec.files[${i}]`, provision, options, errors),
  );
  if (errors.length > 0) throw new UserDataError(name, errors);

  // shellcheck's notes on single-quoted words whose content is literal on purpose
  const notes = new Set<string>();
  const word = (value: string): string => {
    const quoted = shellQuote(value);
    if (/[$`]/.test(quoted)) notes.add('SC2016'); // "expressions don't expand in single quotes"
    if (quoted.includes("\\'")) notes.add('SC1003'); // "want to escape a single quote?"
    return quoted;
  };

  const out: string[] = [
    '#!/bin/bash',
    `# User data of OperatingSystemConfig ${JSON.stringify(name)} (purpose ${spec.purpose}), rendered by os-local.`,
    'set -o errexit',
    'set -o nounset',
    'set -o pipefail',
    'umask 0022',
    '',
    `# Every path written below is prefixed with $${ROOT_VARIABLE}: empty on a node, a directory in tests.`,
    `root="\${${ROOT_VARIABLE}:-}"`,
    '',
  ];
  if (provision) {
    out.push(
      `if [[ -e "$root"${PROVISION_MARKER} ]]; then`,
      '  echo "Provision OSC already applied, exiting..."',
      '  exit 0',
      'fi',
      '',
    );
  }
  out.push(...HELPERS, '', '# Files');

  (spec.files ?? []).forEach((file, i) => {
    const content = files[i]!;
    if (content.kind === 'image') {
      out.push(
        `# ${JSON.stringify(file.path)} comes from image ${JSON.stringify(content.image)}: gardener-node-agent writes it`,
      );
      return;
    }
    const mode = octal(file.permissions ?? DEFAULT_FILE_PERMISSIONS);
    out.push(
      content.text
        ? heredoc(`write_text ${word(file.path)} ${mode}`, content.bytes.toString('utf8'))
        : heredoc(`write_b64 ${word(file.path)} ${mode}`, wrappedBase64(content.bytes)),
    );
  });

  const unitMode = octal(UNIT_FILE_PERMISSIONS);
  out.push('', '# Units and drop-ins');
  for (const unit of spec.units ?? []) {
    const unitPath = `${UNIT_DIRECTORY}/${unit.name}`;
    if (unit.content !== undefined) {
      out.push(heredoc(`write_b64 ${word(unitPath)} ${unitMode}`, wrappedBase64(utf8(unit.content))));
    }
    for (const dropIn of unit.dropIns ?? []) {
      const dropInPath = `${unitPath}.d/${dropIn.name}`;
      out.push(heredoc(`write_b64 ${word(dropInPath)} ${unitMode}`, wrappedBase64(utf8(dropIn.content))));
    }
  }

  out.push('', 'systemctl daemon-reload');
  if (provision) {
    out.push('', '# Units: enable or disable, restart or stop');
    for (const unit of spec.units ?? []) out.push(...unitCommands(unit, word));
    out.push('', `mkdir -p -- "$root"${dirname(PROVISION_MARKER)}`, `touch -- "$root"${PROVISION_MARKER}`);
  }
  if (notes.size > 0)
    out.splice(
      2,
      0,
      `# shellcheck disable=${[...notes].sort().join(',')} # names are single-quoted on purpose`,
    );
  return `${out.join('\n')}\n`;
}

/**
 * Enable unless `enable: false` (then disable); stop when disabled or `command: stop`, else
 * restart (`start` restarts too), without waiting for the job: the node agent's rule, and what
 * upstream's OS extensions do for every unit (`systemctl enable && systemctl restart --no-block`).
 */
function unitCommands(unit: OscUnit, word: (value: string) => string): string[] {
  const name = word(unit.name);
  const disabled = unit.enable === false;
  const stop = disabled || unit.command === 'stop';
  return [
    `systemctl ${disabled ? 'disable' : 'enable'} -- ${name}`,
    `systemctl ${stop ? 'stop' : 'restart'} --no-block -- ${name}`,
  ];
}

/**
 * write_b64/write_text PATH MODE: the here-document on stdin becomes $root$PATH with exactly MODE,
 * written atomically (a temporary file next to it, then rename); parents are created 0755.
 */
const HELPERS = [
  '# Creates the parent directory of $root$1 and prints a new temporary file (mode 0600) in it.',
  '# (No dirname: a command substitution would drop trailing newlines of a directory name.)',
  'new_temp() {',
  `  local dir="$root\${1%/*}"`,
  `  mkdir -p -- "\${dir:-/}"`,
  '  mktemp -- "$dir/.os-local.XXXXXX"',
  '}',
  '',
  '# Gives the temporary file $1 the mode $3 and moves it to $root$2.',
  'commit() {',
  '  chmod -- "$3" "$1"',
  '  mv -fT -- "$1" "$root$2"',
  '}',
  '',
  '# write_b64 PATH MODE: the base64 text on stdin, decoded, becomes the file.',
  'write_b64() {',
  '  local tmp',
  '  tmp="$(new_temp "$1")"',
  '  if ! base64 -d >"$tmp"; then',
  '    rm -f -- "$tmp"',
  '    return 1',
  '  fi',
  '  commit "$tmp" "$1" "$2"',
  '}',
  '',
  '# write_text PATH MODE: the text on stdin, without the newline the here-document adds, becomes the file.',
  'write_text() {',
  '  local tmp text',
  '  tmp="$(new_temp "$1")"',
  "  IFS= read -r -d '' text || true",
  `  printf '%s' "\${text%$'\\n'}" >"$tmp"`,
  '  commit "$tmp" "$1" "$2"',
  '}',
];

function validSpec(osc: OperatingSystemConfig, name: string): OscSpec {
  const parsed = TolerantOsc.Spec.safeParse(osc.spec);
  if (!parsed.success) throw new UserDataError(name, fieldErrorsFromZod(parsed.error, ['spec']));
  // Go's decoder takes any purpose; what an OS extension renders depends on it, so it must be known
  // (upstream's admission validation says the same).
  if (!(OSC_PURPOSES as readonly string[]).includes(parsed.data.purpose)) {
    throw new UserDataError(name, [
      {
        type: 'NotSupported',
        field: 'spec.purpose',
        value: parsed.data.purpose,
        detail: `supported values: ${OSC_PURPOSES.join(', ')}`,
      },
    ]);
  }
  return parsed.data;
}

function contentOf(
  file: OscFile,
  field: string,
  provision: boolean,
  options: UserDataOptions,
  errors: FieldError[],
): Content {
  const { inline, secretRef, imageRef, transmitUnencoded } = file.content;
  const fail = (where: string, detail: string): Content => {
    errors.push({ type: 'Invalid', field: `${field}.content${where}`, detail });
    return { kind: 'bytes', bytes: Buffer.alloc(0), text: false };
  };
  let bytes: Buffer;
  if (inline) {
    if (inline.encoding === 'b64') {
      const decoded = strictBase64(inline.data);
      if (!decoded) return fail('.inline.data', 'not valid base64 (standard alphabet, padded)');
      bytes = decoded;
    } else {
      bytes = utf8(inline.data);
    }
  } else if (secretRef) {
    if (!options.resolveSecretRef) {
      return fail(
        '.secretRef',
        `secret ${JSON.stringify(secretRef.name)} must be resolved by the OS extension (options.resolveSecretRef): ` +
          'only the OSC secret gardenlet ships to the node has it inlined',
      );
    }
    const data = options.resolveSecretRef(secretRef, file);
    if (data === undefined)
      return fail(
        '.secretRef',
        `secret ${JSON.stringify(secretRef.name)} has no key ${JSON.stringify(secretRef.dataKey)}`,
      );
    bytes = typeof data === 'string' ? utf8(data) : Buffer.from(data);
  } else if (imageRef) {
    if (provision) {
      return fail(
        '.imageRef',
        'user data cannot pull an image; only the node agent writes imageRef files (reconcile purpose)',
      );
    }
    return { kind: 'image', image: imageRef.image };
  } else {
    return fail('', 'has neither inline, secretRef nor imageRef content');
  }
  if (transmitUnencoded === true) {
    const text = bytes.toString('utf8');
    if (!utf8(text).equals(bytes) || text.includes('\0'))
      return fail('.transmitUnencoded', 'content must be UTF-8 text without NUL bytes to be sent unencoded');
    return { kind: 'bytes', bytes, text: true };
  }
  return { kind: 'bytes', bytes, text: false };
}

/** Go's base64.StdEncoding: CR and LF ignored, padding required, nothing else tolerated. */
function strictBase64(data: string): Buffer | undefined {
  const compact = data.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
  const bytes = Buffer.from(compact, 'base64');
  return bytes.toString('base64') === compact ? bytes : undefined;
}

/**
 * `command <<'EOF_…'` with a delimiter derived from the body's hash and checked against every
 * line of it, so no content can end the here-document early (quoted: nothing in it expands).
 */
function heredoc(command: string, body: string): string {
  const lines = new Set(body.split('\n'));
  let delimiter = '';
  for (let i = 0; delimiter === '' || lines.has(delimiter); i++) {
    delimiter = `EOF_${createHash('sha256').update(`${i}\n${body}`).digest('hex').slice(0, 16)}`;
  }
  return `${command} <<'${delimiter}'\n${body}\n${delimiter}`;
}

function wrappedBase64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/.{76}(?=.)/g, '$&\n');
}

function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/** `%04o`, as upstream's `chmod "%04o"`. */
function octal(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}

function dirname(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}
