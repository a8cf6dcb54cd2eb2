/**
 * Which file contents a plan must not print: credentials reach nodes through OSC files (a provider's
 * cloud credentials, kubeconfigs, private keys, tokens), and a plan is pasted into tickets and CI
 * logs. A file is redacted when its path or either version of its content looks like a secret;
 * the plan then shows sizes instead. Erring on the side of hiding: a redacted CA bundle costs a
 * look at the node, a printed key costs a rotation.
 */

/** File names that hold credentials whatever they contain. */
const SECRET_PATH = [
  /\/credentials?\//i,
  /(^|[/._-])(token|tokens|password|passwd|secret|secrets)([/._-]|$)/i,
  /kubeconfig/i,
  /\.(key|p12|pfx|jks|keystore)$/i,
  /\/(id_(rsa|dsa|ecdsa|ed25519)|ssh_host_[a-z0-9]+_key)$/i,
  /\/\.?(netrc|htpasswd|pgpass)$/i,
];

/** Content that is a credential wherever it is written. */
const SECRET_CONTENT: readonly [RegExp, string][] = [
  [/-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----/, 'a private key'],
  // the value on the same line: `token:` opening a mapping (the agent's controllers.token) is none
  [
    /^[ \t]*"?(token|password|passwd|client-key-data|client-secret|clientSecret|secret|secretAccessKey|secret_access_key|bearerToken|bearer_token|access_token|api[_-]?key)"?[ \t]*[:=][ \t]*"?[^\s"<>]/im,
    'a credential field',
  ],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, 'a JSON web token'],
  [/\b[a-z0-9]{6}\.[a-z0-9]{16}\b/, 'a bootstrap token'],
  [/\bAKIA[0-9A-Z]{16}\b/, 'an access key id'],
];

/** Why a file's content is not shown, or undefined when it may be. */
export function redactionReason(path: string, contents: readonly (string | undefined)[]): string | undefined {
  if (SECRET_PATH.some((pattern) => pattern.test(path))) return 'the path names a credential';
  for (const text of contents) {
    if (text === undefined) continue;
    for (const [pattern, what] of SECRET_CONTENT) if (pattern.test(text)) return `it holds ${what}`;
  }
  return undefined;
}
