import { batchGetAll } from '../storage/paginated-requests';
import { entityKeys, type ItemKey } from '../storage/keys';
import type { EntityDefinition, StoredRecord } from './entity';
import { recordFromItem } from './entity.repository';

type Known = Record<string, unknown>;

/**
 * The records a write has read (consistently, for its checks) or is writing, by item key, so that
 * its answer, made before the commit, shows them as the write leaves them and reads none of them
 * again: nothing after the commit can fail a write that was made. A read with no write behind it
 * (a `GET`) starts from an empty store and reads everything.
 *
 * A store lives as long as its scope: one try of a write (a family read for it, a parent, a write
 * context), so a retry after a version conflict never shows what an abandoned try planned.
 */
export class KnownRecords {
  private readonly byKey = new Map<string, Known | null>();

  /** A record as this write read it or leaves it; `null`: read, and not there. */
  remember(key: ItemKey, record: Known | null): this {
    this.byKey.set(keyText(key), record);
    return this;
  }

  /**
   * The records at `keys` (null: none), in their order: those known, and the others in one
   * consistent BatchGetItem (the answer's ETag stands for them, and If-Match is judged against it),
   * each made a record by `decode`. What was read is then known too.
   */
  async read<T extends Known = Known>(keys: ItemKey[], decode: (item: Known) => T = (item) => item as T): Promise<Array<T | null>> {
    const missing = uniqueKeys(keys.filter((key) => !this.byKey.has(keyText(key))));
    if (missing.length > 0) {
      const found = new Map((await batchGetAll(missing, { consistentRead: true })).map((item) => [keyText(item as ItemKey), item]));
      for (const key of missing) {
        const item = found.get(keyText(key));
        this.byKey.set(keyText(key), item ? decode(item) : null);
      }
    }
    return keys.map((key) => (this.byKey.get(keyText(key)) ?? null) as T | null);
  }

  /** A record of an entity as this write read it or leaves it. */
  rememberRecord(entity: EntityDefinition, record: StoredRecord): this {
    return this.remember(entityKeys.record(entity.type, record.organization_id, record.id), record);
  }

  /** Records of an entity by id, those that exist: see `read`. */
  async records(entity: EntityDefinition, organizationId: string, ids: string[]): Promise<Map<string, StoredRecord>> {
    const found = await this.read(ids.map((id) => entityKeys.record(entity.type, organizationId, id)), (item) => recordFromItem(entity, item));
    return new Map(found.flatMap((record) => (record ? [[record.id, record] as const] : [])));
  }
}

const stores = new WeakMap<object, KnownRecords>();

/** The store of a scope (created on first use): see `KnownRecords`. */
export function knownRecords(scope: object): KnownRecords {
  let store = stores.get(scope);
  if (!store) {
    store = new KnownRecords();
    stores.set(scope, store);
  }
  return store;
}

const keyText = (key: ItemKey) => `${key.pk}\u0000${key.sk}`;

function uniqueKeys(keys: ItemKey[]): ItemKey[] {
  const seen = new Set<string>();
  return keys.filter((key) => !seen.has(keyText(key)) && Boolean(seen.add(keyText(key))));
}
