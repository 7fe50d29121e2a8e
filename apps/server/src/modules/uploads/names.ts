const MAX_NAME_LENGTH = 120;
/** Other spellings of a sniffed extension that may stay as the uploader wrote them. */
const SAME_EXTENSION: Record<string, string[]> = { jpg: ['jpeg', 'jpe', 'jfif'] };

/**
 * The name an upload is shown and served under: control and format characters (the bidi overrides and
 * isolates, U+200E/F, U+061C among them) removed, path separators and quotes replaced, no leading dots,
 * and an extension that agrees with the sniffed type. A wrong extension is replaced rather than kept in
 * front (`x.exe` holding a ZIP becomes `x.zip`, not `x.exe.zip`): file managers that hide known
 * extensions would show `x.exe.zip` as `x.exe`.
 */
export function cleanName(original: string, extension: string): string {
  const name = original
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/gu, '')
    .replace(/[\\/:*?"<>|]/g, '_')
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/^[.\s]+/u, '');
  const dot = name.lastIndexOf('.');
  const current = dot > 0 ? name.slice(dot + 1) : '';
  const lower = current.toLowerCase();
  const agrees = lower === extension || (SAME_EXTENSION[extension]?.includes(lower) ?? false);
  // A wrong extension is dropped; what follows a dot but is no extension (`v1.2 final`) stays in the stem.
  const stem = dot > 0 && (agrees || /^[a-z0-9]{1,8}$/.test(lower)) ? name.slice(0, dot) : name;
  const short = [...stem.replace(/[.\s]+$/u, '')].slice(0, MAX_NAME_LENGTH).join('');
  return `${short || 'file'}.${agrees ? current : extension}`;
}
