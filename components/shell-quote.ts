/** A value as one POSIX shell word, whatever it contains (image references, URLs, names). */
export function shellQuote(value: string): string {
  // bash cuts a word at NUL without a word of warning: such a value cannot be passed at all
  if (value.includes('\0'))
    throw new Error(`cannot pass a value containing NUL to a shell script: ${JSON.stringify(value)}`);
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}
