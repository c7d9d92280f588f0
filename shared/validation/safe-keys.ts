/**
 * Keys that could reach an object's prototype when a body is turned into objects. They are
 * dropped, at any depth, before anything reads a request body (API and intake alike): never
 * stored, never echoed, never written into a details note.
 */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function isUnsafeKey(key: string): boolean {
  return UNSAFE_KEYS.has(key);
}

/** A bracketed or dotted form key (`a[b][c]`, `a.b`) is unsafe when any of its parts is. */
export function hasUnsafeKeyPart(key: string): boolean {
  return key.split(/[[\].]+/).some((part) => UNSAFE_KEYS.has(part));
}

/** JSON.parse that drops unsafe keys at every depth (a reviver returning undefined removes the key). */
export function parseJsonWithoutUnsafeKeys(text: string): unknown {
  return JSON.parse(text, function dropUnsafeKeys(key, value) {
    return UNSAFE_KEYS.has(key) ? undefined : value;
  });
}
