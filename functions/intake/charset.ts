import iconv from 'iconv-lite';

/**
 * The character sets an intake body may be declared in: every charset iconv-lite knows
 * (`windows-1255`, `ISO-8859-8`, `ISO-8859-8-I`, `cp862`, UTF-16, ...); names are matched
 * case-insensitively. With no declaration the body is UTF-8.
 */
export const DEFAULT_CHARSET = 'utf-8';

/** iconv-lite also "decodes" bytes to base64 or hex text; neither is a character set. */
const NOT_CHARSETS = new Set(['base64', 'hex']);

/** A declared charset the intake cannot decode: 400, reason `unsupported_charset`. */
export class UnsupportedCharsetError extends Error {
  constructor(readonly charset: string, where: string) {
    super(`Unsupported charset "${charset.slice(0, 100)}"${where}; send UTF-8 or a charset such as windows-1255 or ISO-8859-8`);
    this.name = 'UnsupportedCharsetError';
  }
}

export interface Charset {
  name: string;
  decode(bytes: Buffer): string;
  /** ASCII bytes mean ASCII characters (so `&`, `=` and `%XX` can be read before decoding). */
  asciiCompatible: boolean;
}

const ASCII_PROBE = 'name=a+b&x=%41;"\r\n';

/** `where` says which declaration it was, for the 400 details: `''`, ` (field _charset_)`, ` (part "x")`. */
export function charsetFor(name: string, where = ''): Charset {
  const label = name.trim().toLowerCase();
  if (label === '' || NOT_CHARSETS.has(label.replace(/[^a-z0-9]/g, '')) || !iconv.encodingExists(label)) {
    throw new UnsupportedCharsetError(name, where);
  }
  // The BOM, when sent, is not part of the text (iconv-lite strips it by default).
  const decode = (bytes: Buffer) => iconv.decode(bytes, label);
  return { name: label, decode, asciiCompatible: decode(Buffer.from(ASCII_PROBE, 'latin1')) === ASCII_PROBE };
}
