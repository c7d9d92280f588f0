import { validationFailed } from '../../shared/http/errors';
import { getRecord, listRecords } from '../../shared/resources/entity.repository';
import { mortgageFileEntity } from '../mortgage-files/mortgage-file.entity';

/**
 * Lead conversion (spec §4, resources.md §5 "Lead conversion"): the file a converted lead points
 * to is the organization's newest mortgage file whose `source_lead_id` is the lead; undefined when
 * there is none. Read only when a lead's status becomes the converted status.
 */
export async function newestFileIdOfLead(organizationId: string, leadId: string): Promise<string | undefined> {
  const { data } = await listRecords(mortgageFileEntity, organizationId, { source_lead_id: leadId, limit: '1' });
  return data[0]?.id;
}

/** A `converted_to_mortgage_file_id` sent by a client names one of the organization's files (spec §7: else 400 naming the field). */
export async function assertConvertedFileOfOrganization(organizationId: string, fileId: string | null | undefined): Promise<void> {
  if (typeof fileId !== 'string') return;
  // Strongly consistent: a file created just before is found.
  if (!(await getRecord(mortgageFileEntity, organizationId, fileId))) {
    throw validationFailed('converted_to_mortgage_file_id: not a mortgage file of the organization');
  }
}
