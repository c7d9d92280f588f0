import { createHash } from 'node:crypto';
import { ApiError } from './errors';

/**
 * Optimistic concurrency (strong ETags and If-Match), one mechanism for every resource.
 *
 * Every stored record carries a `version` that each write increments. Repositories register the
 * version of each record they return (`withVersion`); the API pipeline turns it into the `ETag`
 * of single-record responses. A write that was sent with `If-Match` compares it with the ETag of
 * the record it read, then writes on the condition that the version is still the one read, so a
 * change between the read and the write is a 412 rather than a lost update.
 *
 * The version travels beside the record (a WeakMap) rather than in it, so that responses carry
 * only documented fields.
 */
const versions = new WeakMap<object, number>();

export const VERSION_ATTRIBUTE = 'version';

export function withVersion<T extends object>(record: T, version: number): T {
  versions.set(record, version);
  return record;
}

export function versionOf(record: unknown): number | undefined {
  return record !== null && typeof record === 'object' ? versions.get(record) : undefined;
}

/** Items written before versions existed count as version 0. */
export function storedVersion(item: Record<string, unknown>): number {
  const value = item[VERSION_ATTRIBUTE];
  return typeof value === 'number' ? value : 0;
}

/**
 * What a record's ETag stands for when its answer shows other records (a task's lead and customer
 * names, a file contact's contact): its own version and what it shows of them, so a change of what
 * the answer shows changes the tag. What is shown, not their versions: a write that only holds a
 * linked record (`WriteBatch.hold`) moves its version but changes no answer. Kept beside the answer,
 * as the version is.
 */
const tagSources = new WeakMap<object, string>();

/** What an ETag stands for when an answer shows more than its record: its version and what else it shows. */
export function joinedTagSource(ownVersion: number, joined: readonly unknown[]): string {
  return `${ownVersion}#${JSON.stringify(joined)}`;
}

function withJoinedTag<T extends object>(record: T, ownVersion: number, joined: readonly unknown[]): T {
  tagSources.set(record, joinedTagSource(ownVersion, joined));
  return record;
}

/**
 * Answers built from stored records (a `present` hook): each keeps its record's version and, with
 * `joined` (what the answer shows of other records), stands for that too.
 */
export function taggedAnswers<T extends object>(answers: T[], records: readonly object[], joined?: (answer: T) => readonly unknown[]): T[] {
  return answers.map((answer, index) => {
    const version = versionOf(records[index]) ?? 0;
    withVersion(answer, version);
    return joined ? withJoinedTag(answer, version, joined(answer)) : answer;
  });
}

/** What the record's ETag is made from: its joined tag, else its version. */
export function tagSourceOf(record: unknown): string | number | undefined {
  return record !== null && typeof record === 'object' ? (tagSources.get(record) ?? versions.get(record)) : undefined;
}

/** A strong entity tag: opaque, different for every record and every version of it. */
export function entityTag(id: string, version: number | string): string {
  return `"${createHash('sha256').update(`${id}#${version}`).digest('base64url').slice(0, 27)}"`;
}

export function entityTagOf(record: unknown): string | undefined {
  const source = tagSourceOf(record);
  const id = (record as { id?: unknown } | null)?.id;
  return source !== undefined && typeof id === 'string' ? entityTag(id, source) : undefined;
}

/** The parsed `If-Match` header: any existing record, or a list of entity tags. */
export type IfMatch = { any: true } | { any: false; tags: string[] };

export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return { any: true };
  // Weak tags never match in a strong comparison (RFC 9110 §13.1.1); they are kept so nothing matches.
  const tags = value.match(/(?:W\/)?"[^"]*"/g) ?? [value];
  return { any: false, tags };
}

export const preconditionFailed = () =>
  new ApiError(412, 'Precondition failed', { details: 'The record changed since the ETag sent in If-Match was read' });

/** Throws 412 unless the record as read satisfies `If-Match`. */
export function assertPrecondition(ifMatch: IfMatch | undefined, record: { id: string }, version: number | string): void {
  if (!ifMatch || ifMatch.any) return;
  if (!ifMatch.tags.includes(entityTag(record.id, version))) throw preconditionFailed();
}

/**
 * `If-Match` against the ETag of the record's answer: the one `answer` builds when the answer shows
 * other records (`taggedAnswers` with `joined`), else the record's version.
 */
export async function assertAnswerPrecondition(ifMatch: IfMatch | undefined, record: { id: string }, answer?: () => Promise<object>): Promise<void> {
  if (!ifMatch || ifMatch.any) return;
  const version = versionOf(record) ?? 0;
  assertPrecondition(ifMatch, record, answer ? (tagSourceOf(await answer()) ?? version) : version);
}

/** The write condition "the version is still the one read", for an item that exists. */
export function versionCondition(seenVersion: number): { expression: string; names: Record<string, string>; values: Record<string, number> } {
  return seenVersion === 0
    ? { expression: 'attribute_exists(pk) AND attribute_not_exists(#version)', names: { '#version': VERSION_ATTRIBUTE }, values: {} }
    : { expression: 'attribute_exists(pk) AND #version = :seenVersion', names: { '#version': VERSION_ATTRIBUTE }, values: { ':seenVersion': seenVersion } };
}
