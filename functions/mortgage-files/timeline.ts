import * as z from 'zod';
import { childOperations, defineChild } from '../../shared/resources/child-collection';
import type { StoredRecord } from '../../shared/resources/entity';
import { listValue } from '../../shared/validation/fields';
import { TIMELINE_FIELDS, TIMELINE_TYPE } from './file-rows';
import { mortgageFileEntity } from './mortgage-file.entity';

/**
 * A file's timeline (resources.md §9.6): read-only rows, newest first, appended by `timelinePut`
 * (`file-rows.ts`) in the same transaction as the write they record.
 */
const dateTime = z.iso.datetime({ offset: true });

export const timelineRowSchema = z
  .object({
    id: z.uuid(),
    mortgage_file_id: z.uuid(),
    event_type: listValue('timeline-event-types'),
    occurred_at: dateTime,
    actor_user_id: z.uuid().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'TimelineEvent' });

const ROW_FIELDS = Object.keys(timelineRowSchema.shape);

export const timelineChild = defineChild({
  type: TIMELINE_TYPE,
  label: 'Timeline event',
  entity: 'timeline_event',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'timeline',
  itemParam: 'eventId',
  names: { singular: 'timelineEvent', plural: 'timelineEvents' },
  schemas: {
    create: z.object({}),
    update: z.object({}),
    record: timelineRowSchema,
    list: z.object({ data: z.array(timelineRowSchema), count: z.number().int() }).meta({ id: 'TimelineEventList' }),
  },
  fields: TIMELINE_FIELDS,
  filters: { event_type: listValue('timeline-event-types') },
  methods: ['list'],
  build: () => ({}),
  change: () => ({}),
  present: (records) => records.map((record) => Object.fromEntries(ROW_FIELDS.map((field) => [field, record[field]])) as StoredRecord),
});

export const timelineOperations = childOperations(timelineChild);
