/**
 * What `org create` seeds for mortgage files (resources.md §12): payment sources, milestone
 * templates (the Israeli process from first documents to the bank's disbursement, none with a
 * display condition) and required-document templates; no custom fields. Ids are given per
 * organization when the defaults are written (file-settings.repository.ts).
 */
export interface DefaultPaymentSource {
  key: string;
  label: string;
  label_he: string;
}

export interface DefaultMilestoneTemplate {
  key: string;
  label: string;
  label_he: string;
  order: number;
  due_offset_days: number;
  checklist: { label: string; label_he: string }[];
}

export interface DefaultDocumentTemplate {
  key: string;
  label: string;
  label_he: string;
  per_borrower: boolean;
}

export const DEFAULT_PAYMENT_SOURCES: readonly DefaultPaymentSource[] = [
  { key: 'bank_transfer', label: 'Bank transfer', label_he: 'העברה בנקאית' },
  { key: 'credit_card', label: 'Credit card', label_he: 'כרטיס אשראי' },
  { key: 'check', label: 'Check', label_he: "צ'ק" },
  { key: 'cash', label: 'Cash', label_he: 'מזומן' },
  { key: 'bit', label: 'Bit', label_he: 'ביט' },
];

export const DEFAULT_MILESTONE_TEMPLATES: readonly DefaultMilestoneTemplate[] = [
  {
    key: 'documents_collected',
    label: 'Documents collected',
    label_he: 'איסוף מסמכים',
    order: 10,
    due_offset_days: 7,
    checklist: [
      { label: 'ID cards', label_he: 'צילומי תעודות זהות' },
      { label: 'Payslips', label_he: 'תלושי שכר' },
      { label: 'Bank statements', label_he: 'דפי עו"ש' },
    ],
  },
  { key: 'bank_submission', label: 'Submitted to banks', label_he: 'הגשה לבנקים', order: 20, due_offset_days: 14, checklist: [] },
  { key: 'approval_in_principle', label: 'Approval in principle', label_he: 'אישור עקרוני', order: 30, due_offset_days: 21, checklist: [] },
  { key: 'appraisal', label: 'Appraisal', label_he: 'שמאות', order: 40, due_offset_days: 30, checklist: [] },
  { key: 'final_approval', label: 'Final approval', label_he: 'אישור סופי', order: 50, due_offset_days: 45, checklist: [] },
  {
    key: 'signing',
    label: 'Loan documents signed',
    label_he: 'חתימה על מסמכי ההלוואה',
    order: 60,
    due_offset_days: 60,
    checklist: [
      { label: 'Borrowers signed', label_he: 'חתימת לווים' },
      { label: 'Life insurance', label_he: 'ביטוח חיים' },
      { label: 'Property insurance', label_he: 'ביטוח מבנה' },
    ],
  },
  { key: 'disbursement', label: 'Disbursement', label_he: 'ביצוע ההלוואה', order: 70, due_offset_days: 75, checklist: [] },
];

export const DEFAULT_DOCUMENT_TEMPLATES: readonly DefaultDocumentTemplate[] = [
  { key: 'id_card', label: 'ID card with appendix', label_he: 'תעודת זהות כולל ספח', per_borrower: true },
  { key: 'payslips_3_months', label: 'Last 3 payslips', label_he: '3 תלושי שכר אחרונים', per_borrower: true },
  { key: 'bank_statements_3_months', label: 'Bank statements, 3 months', label_he: 'דפי עו"ש ל-3 חודשים', per_borrower: true },
  { key: 'property_contract', label: 'Purchase contract', label_he: 'חוזה רכישה', per_borrower: false },
  { key: 'appraisal_report', label: 'Appraisal report', label_he: 'דוח שמאי', per_borrower: false },
  { key: 'loan_approval', label: "Bank's approval letter", label_he: 'אישור עקרוני מהבנק', per_borrower: false },
];
