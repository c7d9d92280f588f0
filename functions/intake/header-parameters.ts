/**
 * A header value with parameters, as `Content-Type` and `Content-Disposition` carry them:
 * `multipart/form-data; boundary="x y"`, `form-data; name="fields[name]"`. Parameter names are
 * lowercased; values are tokens or quoted strings (backslash escapes undone).
 */
export interface HeaderValue {
  /** The part before the first `;`, lowercased: `application/json`, `form-data`. */
  value: string;
  parameters: Map<string, string>;
}

const PARAMETER = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\[\s\S])*)"|([^;]*))/g;

export function parseHeaderValue(header: string | undefined): HeaderValue {
  const text = header ?? '';
  const separator = text.indexOf(';');
  const value = (separator === -1 ? text : text.slice(0, separator)).trim().toLowerCase();
  const parameters = new Map<string, string>();
  if (separator !== -1) {
    for (const match of text.slice(separator).matchAll(PARAMETER)) {
      const name = match[1].toLowerCase();
      const parameter = match[2] !== undefined ? match[2].replace(/\\([\s\S])/g, '$1') : match[3].trim();
      // The first occurrence counts, as for a repeated header.
      if (!parameters.has(name)) parameters.set(name, parameter);
    }
  }
  return { value, parameters };
}
