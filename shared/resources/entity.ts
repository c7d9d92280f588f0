import type * as z from 'zod';
import type { ApiError } from '../http/errors';
import type { TransactItem } from '../storage/transactions';
import type { WriteContext } from '../write-context';
import type { WriteBatch } from './write-batch';
import type { DeleteWork } from './delete-work';

/** What every stored record has (resources.md §1 "Record"). */
export interface BaseRecord {
  id: string;
  organization_id: string;
  created_at: string;
  updated_at: string;
}

export type StoredRecord = BaseRecord & Record<string, unknown>;

/** A field whose value is unique in the organization (a guard item written in the same transaction). */
export interface UniqueField {
  field: string;
  conflict: () => ApiError;
}

/**
 * One resource, declared once: its schemas, its storage type, how it is searched and filtered,
 * and the rules that are its own. Keys, item mapping, the repository (get, paged list with
 * count, filters and search, conditional create with counters and write log in one transaction,
 * versioned update with retry and If-Match, delete) and the CRUD operations are derived from it
 * (`entity.repository.ts`, `crud-operations.ts`).
 */
export interface EntityDefinition {
  /** Storage type, in keys and the `entity` attribute (`CUSTOMER`). */
  type: string;
  /** For messages: `Customer` → 404 `Customer not found`. */
  label: string;
  /** The collection's path (`/customers`); the item is `<path>/{id}`. */
  path: string;
  /** operationId stems: `customer` → `listCustomers`, `getCustomer`, ... */
  names: { singular: string; plural: string };
  schemas: {
    create: z.ZodType;
    update: z.ZodType;
    /** The response record: only these fields leave the repository. */
    record: z.ZodObject;
    list: z.ZodType;
    /** Filters of the list (`GET <path>?<filter>=`), each a schema of one value. */
    filters: Record<string, z.ZodType<string>>;
  };
  /** Fields the case-insensitive `search` matches (spec §4 Search). */
  searchFields: string[];
  /** Stored attributes kept beside the record, never answered (search and filter inputs other writes maintain). */
  internalFields?: string[];
  /** Filter values of a record where they are not its own field of that name (a list: membership). */
  filterValues?(values: Record<string, unknown>): Record<string, string | string[]>;
  /** Filters whose stored value is a list: a record matches when the list contains the value. */
  multiValueFilters?: string[];
  unique?: UniqueField[];
  /**
   * Domain rules of a create: the record's own fields from the validated body (throws ApiError).
   * `checks` takes condition checks of the records the rules read (a referenced record still there),
   * each with the error its failure means; they are written in the create's transaction.
   */
  build(input: Record<string, unknown>, context: WriteContext, checks: WriteBatch): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Domain rules of an update: the changed fields (an empty object: nothing to write); `checks` as in `build`, written only with a change. */
  change(current: StoredRecord, input: Record<string, unknown>, context: WriteContext, checks: WriteBatch): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Rows written in the create's transaction (for example timeline rows). */
  createItems?(record: StoredRecord, context: WriteContext): TransactItem[];
  /** Rows written in an update's transaction, from the record before and after (for example a status history row). */
  changeItems?(before: StoredRecord, after: StoredRecord, input: Record<string, unknown>, context: WriteContext): TransactItem[];
  /** Rows removed in the delete's transaction, from the record (for example its rows in other records' partitions). */
  deleteItems?(record: StoredRecord, context: WriteContext): TransactItem[];
  /** Checks of a delete that read (throw to refuse it) and the items they add to the delete's transaction (`batch`). */
  beforeDelete?(record: StoredRecord, context: WriteContext, batch: WriteBatch): Promise<void>;
  /** What the delete does to records elsewhere that name the deleted one (unlinked, or deleted with it): in its transaction as far as it fits, the rest after it (delete-work.ts). */
  deleteWork?: readonly DeleteWork[];
  /** Its records keep rows in their own partition (children, history, timeline), removed after the record's delete. */
  keepsRows?: boolean;
  /** What the ETag of the record's answer stands for, when the answer shows other records (`taggedAnswers`); default its version. */
  tagSource?(record: StoredRecord, organizationId: string): Promise<string | number>;
}

export function defineEntity(definition: EntityDefinition): EntityDefinition {
  return definition;
}

/**
 * What a resource nested under a parent record declares, whether a part of the parent's answer
 * (`child-entity.ts`) or a collection of its own (`child-collection.ts`): its names, routes and schemas.
 */
export interface NestedResource {
  type: string;
  label: string;
  parent: EntityDefinition;
  /** The attribute naming the parent (`mortgage_file_id`). */
  parentIdField: string;
  /** The collection's segment under the parent item (`notes` → `/mortgage-files/{id}/notes`). */
  segment: string;
  /** The item's path parameter (`noteId`). */
  itemParam: string;
  names: { singular: string; plural: string };
  schemas: { create: z.ZodType; update: z.ZodType; record: z.ZodObject; list: z.ZodType };
  /** Stored fields besides id, organization, parent id and times (the answer may add more in `present`). */
  fields: string[];
  /** The order of the collection: default newest first. */
  order?(a: StoredRecord, b: StoredRecord): number;
}
