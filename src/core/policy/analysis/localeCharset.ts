// Which locales bash reads a command line in the same way the policy does. The policy reads a line as
// UTF-8; bash reads it in the character set of its locale (`LC_ALL`, else `LC_CTYPE`, else `LANG`).
// In GBK, GB18030, BIG5, BIG5-HKSCS and Shift_JIS the second byte of a two-byte character may be an
// ASCII byte (0x40-0x7E: `\`, a backtick, `{`, `|`, `}`, `[`, `]`, `~`, …): the UTF-8 bytes of `中`
// followed by `\` read there as two characters, the backslash swallowed, so `echo "中\" ; touch F ; # "`
// is one `echo` to the policy and an `echo` and a `touch` to bash. Character sets whose multibyte
// characters are made of bytes >= 0x80 only (UTF-8, the EUC family, every single-byte set) cannot
// swallow an ASCII byte. So a locale counts as safe only when it says it is one of those; a locale
// without a character set (`zh_TW`: BIG5 by default) or with any other asks.
//
// Plain data and string work only.

/** The variables that choose the character set bash reads a line in. */
export const PARSING_LOCALE_NAMES: readonly string[] = Object.freeze(['LC_ALL', 'LC_CTYPE', 'LANG']);

/** True for `LC_ALL`, `LC_CTYPE`, `LANG`. */
export function isParsingLocaleName(name: string): boolean {
  return PARSING_LOCALE_NAMES.includes(name);
}

/** Character sets (lower case, letters and digits only) whose multibyte characters never hold an ASCII byte. */
const SAFE_CODESETS: readonly RegExp[] = [
  /^utf8$/,
  /^(ascii|usascii|ansix341968|646)$/,
  /^iso8859\d+$/,
  /^iso885915$/,
  /^(latin\d+|l\d)$/,
  /^koi8[a-z]*$/,
  /^(cp|windows)12[5]\d$/,
  /^(eucjp|ujis|euckr|euccn|gb2312|euctw|eucjpms)$/,
  /^(tis620|georgianps|pt154|armscii8|tcvn57121|viscii|rk1048|mikcyrillic)$/,
];

/**
 * True when bash reads any line in `value`'s character set exactly as in UTF-8 (see the header):
 * empty (the next variable or the default decides), `C`, `POSIX`, or a locale naming a safe set.
 */
export function isParsingSafeLocale(value: string): boolean {
  const v = value.trim();
  if (v === '' || v === 'C' || v === 'POSIX') return true;
  const dot = v.indexOf('.');
  if (dot < 0) return false;
  const codeset = v
    .slice(dot + 1)
    .replace(/@.*$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  return SAFE_CODESETS.some((re) => re.test(codeset));
}

/** Why a locale setting makes a line ask (the approval dialog shows it). */
export function localeCharsetReason(name: string): string {
  return (
    `\`${name}=…\` picks a character set that is not known to be UTF-8, single-byte or EUC (GBK, BIG5, Shift_JIS…, ` +
    'or a value known only at run time): bash would read the line in it, and there a two-byte character can swallow a `\\` or a quote the policy read'
  );
}
