/**
 * The fixed value lists of resources.md §2: `GET /lists/{name}` serves them and every validator's
 * enum is built from them (one definition serves both).
 */
export const SYSTEM_LISTS = {
  'id-types': [
    { value: "personal_id", label: "Israeli ID", label_he: "תעודת זהות" },
    { value: "passport", label: "Passport", label_he: "דרכון" },
    { value: "company", label: "Company", label_he: "חברה" },
    { value: "association", label: "Association", label_he: "עמותה" },
  ],
  'marital-statuses': [
    { value: "single", label: "Single", label_he: "רווק/ה" },
    { value: "married", label: "Married", label_he: "נשוי/אה" },
    { value: "divorced", label: "Divorced", label_he: "גרוש/ה" },
    { value: "widowed", label: "Widowed", label_he: "אלמן/ה" },
    { value: "separated", label: "Separated", label_he: "פרוד/ה" },
    { value: "common_law", label: "Common-law partner", label_he: "ידוע/ה בציבור" },
  ],
  'education-levels': [
    { value: "none", label: "None", label_he: "ללא" },
    { value: "high_school", label: "High school", label_he: "תיכונית" },
    { value: "vocational", label: "Vocational", label_he: "מקצועית" },
    { value: "bachelor", label: "Bachelor's degree", label_he: "תואר ראשון" },
    { value: "master", label: "Master's degree", label_he: "תואר שני" },
    { value: "doctorate", label: "Doctorate", label_he: "תואר שלישי" },
    { value: "other", label: "Other", label_he: "אחר" },
  ],
  'residence-types': [
    { value: "owner", label: "Owns a home", label_he: "בעלות על דירה" },
    { value: "renter", label: "Renting", label_he: "שכירות" },
    { value: "with_parents", label: "With parents", label_he: "אצל ההורים" },
    { value: "public_housing", label: "Public housing", label_he: "דיור ציבורי" },
    { value: "other", label: "Other", label_he: "אחר" },
  ],
  'employment-types': [
    { value: "salaried", label: "Salaried", label_he: "שכיר/ה" },
    { value: "self_employed", label: "Self-employed", label_he: "עצמאי/ת" },
    { value: "controlling_shareholder", label: "Controlling shareholder", label_he: "בעל/ת שליטה" },
    { value: "pensioner", label: "Pensioner", label_he: "פנסיונר/ית" },
    { value: "unemployed", label: "Not employed", label_he: "לא עובד/ת" },
    { value: "other", label: "Other", label_he: "אחר" },
  ],
  'income-types': [
    { value: "salary", label: "Salary", label_he: "משכורת" },
    { value: "business", label: "Business income", label_he: "הכנסה מעסק" },
    { value: "pension", label: "Pension", label_he: "פנסיה" },
    { value: "rental", label: "Rental income", label_he: "הכנסה משכירות" },
    { value: "allowance", label: "Allowance", label_he: "קצבה" },
    { value: "alimony", label: "Alimony", label_he: "מזונות" },
    { value: "other", label: "Other", label_he: "אחר" },
  ],
  'obligation-types': [
    { value: "loan", label: "Loan", label_he: "הלוואה" },
    { value: "mortgage", label: "Existing mortgage", label_he: "משכנתא קיימת" },
    { value: "credit_card", label: "Credit card", label_he: "כרטיס אשראי" },
    { value: "car_loan", label: "Car loan", label_he: "הלוואת רכב" },
    { value: "leasing", label: "Leasing", label_he: "ליסינג" },
    { value: "guarantee", label: "Guarantee", label_he: "ערבות" },
    { value: "other", label: "Other", label_he: "אחר" },
  ],
  'banks': [
    { value: "10", label: "Bank Leumi", label_he: "בנק לאומי" },
    { value: "11", label: "Israel Discount Bank", label_he: "בנק דיסקונט" },
    { value: "12", label: "Bank Hapoalim", label_he: "בנק הפועלים" },
    { value: "13", label: "Union Bank - Igud", label_he: "בנק איגוד" },
    { value: "14", label: "Bank Otsar Ha-Hayal", label_he: "בנק אוצר החייל" },
    { value: "17", label: "Mercantile Discount Bank", label_he: "בנק מרכנתיל דיסקונט" },
    { value: "20", label: "Mizrahi-Tefahot Bank", label_he: "בנק מזרחי טפחות" },
    { value: "31", label: "First International Bank", label_he: "הבנק הבינלאומי" },
    { value: "46", label: "Bank Massad", label_he: "בנק מסד" },
    { value: "52", label: "Poalei Agudat Israel Bank", label_he: "בנק פועלי אגודת ישראל" },
    { value: "54", label: "Bank of Jerusalem", label_he: "בנק ירושלים" },
    { value: "other", label: "Other", label_he: "אחר" },
  ],
  'mortgage-types': [
    { value: "purchase", label: "Purchase", label_he: "רכישה" },
    { value: "refinance", label: "Refinance", label_he: "מחזור" },
    { value: "any_purpose", label: "Any-purpose loan", label_he: "משכנתא לכל מטרה" },
    { value: "construction", label: "Self-build", label_he: "בנייה עצמית" },
    { value: "bridge", label: "Bridge loan", label_he: "הלוואת גישור" },
    { value: "reverse", label: "Reverse mortgage", label_he: "משכנתא הפוכה" },
  ],
  'mortgage-purposes': [
    { value: "first_home", label: "First or only home", label_he: "דירה יחידה" },
    { value: "replacement_home", label: "Replacement home", label_he: "דירה חלופית" },
    { value: "investment", label: "Investment property", label_he: "דירה להשקעה" },
    { value: "any_purpose", label: "Any purpose", label_he: "לכל מטרה" },
    { value: "refinance", label: "Refinance", label_he: "מחזור" },
  ],
  'borrower-relationships': [
    { value: "spouse", label: "Spouse", label_he: "בן/בת זוג" },
    { value: "parent", label: "Parent", label_he: "הורה" },
    { value: "child", label: "Child", label_he: "ילד/ה" },
    { value: "partner", label: "Partner", label_he: "שותף/ה" },
    { value: "guarantor", label: "Guarantor", label_he: "ערב/ה" },
    { value: "other", label: "Other", label_he: "אחר" },
  ],
  'contact-types': [
    { value: "banker", label: "Banker", label_he: "בנקאי/ת" },
    { value: "appraiser", label: "Appraiser", label_he: "שמאי/ת" },
    { value: "lawyer", label: "Lawyer", label_he: "עורך/ת דין" },
    { value: "mortgage_advisor", label: "Mortgage advisor", label_he: "יועץ/ת משכנתאות" },
    { value: "real_estate_broker", label: "Real-estate broker", label_he: "מתווך/ת" },
    { value: "housing_company", label: "Housing company", label_he: "חברה משכנת" },
    { value: "insurance_agent", label: "Insurance agent", label_he: "סוכן/ת ביטוח" },
    { value: "accountant", label: "Accountant", label_he: "רואה/ת חשבון" },
    { value: "other", label: "Other", label_he: "אחר" },
  ],
  'task-statuses': [
    { value: "open", label: "Open", label_he: "פתוחה" },
    { value: "in_progress", label: "In progress", label_he: "בטיפול" },
    { value: "completed", label: "Completed", label_he: "הושלמה" },
    { value: "cancelled", label: "Cancelled", label_he: "בוטלה" },
  ],
  'task-priorities': [
    { value: "low", label: "Low", label_he: "נמוכה" },
    { value: "normal", label: "Normal", label_he: "רגילה" },
    { value: "high", label: "High", label_he: "גבוהה" },
    { value: "urgent", label: "Urgent", label_he: "דחופה" },
  ],
  'note-types': [
    { value: "general", label: "General", label_he: "כללי" },
    { value: "call", label: "Phone call", label_he: "שיחה" },
    { value: "meeting", label: "Meeting", label_he: "פגישה" },
    { value: "email", label: "Email", label_he: "דוא\"ל" },
    { value: "status_comment", label: "Status comment", label_he: "הערת סטטוס" },
    { value: "internal", label: "Internal", label_he: "פנימי" },
  ],
  'reminder-channels': [
    { value: "in_app", label: "In app", label_he: "באפליקציה" },
    { value: "email", label: "Email", label_he: "דוא\"ל" },
    { value: "sms", label: "SMS", label_he: "מסרון" },
    { value: "whatsapp", label: "WhatsApp", label_he: "וואטסאפ" },
  ],
  'reminder-statuses': [
    { value: "scheduled", label: "Scheduled", label_he: "מתוזמנת" },
    { value: "sent", label: "Sent", label_he: "נשלחה" },
    { value: "cancelled", label: "Cancelled", label_he: "בוטלה" },
  ],
  'document-statuses': [
    { value: "missing", label: "Missing", label_he: "חסר" },
    { value: "requested", label: "Requested", label_he: "התבקש" },
    { value: "received", label: "Received", label_he: "התקבל" },
    { value: "approved", label: "Approved", label_he: "אושר" },
    { value: "rejected", label: "Rejected", label_he: "נדחה" },
    { value: "dismissed", label: "Not needed", label_he: "לא נדרש" },
  ],
  'signature-statuses': [
    { value: "pending", label: "Awaiting signature", label_he: "ממתין לחתימה" },
    { value: "signed", label: "Signed", label_he: "נחתם" },
    { value: "declined", label: "Declined", label_he: "סורב" },
  ],
  'charge-statuses': [
    { value: "pending", label: "Pending", label_he: "ממתין לתשלום" },
    { value: "partial", label: "Partly paid", label_he: "שולם חלקית" },
    { value: "paid", label: "Paid", label_he: "שולם" },
    { value: "cancelled", label: "Cancelled", label_he: "בוטל" },
  ],
  'milestone-statuses': [
    { value: "pending", label: "Not started", label_he: "טרם התחיל" },
    { value: "in_progress", label: "In progress", label_he: "בתהליך" },
    { value: "completed", label: "Completed", label_he: "הושלם" },
    { value: "skipped", label: "Skipped", label_he: "דולג" },
  ],
  'custom-field-types': [
    { value: "text", label: "Text", label_he: "טקסט" },
    { value: "number", label: "Number", label_he: "מספר" },
    { value: "date", label: "Date", label_he: "תאריך" },
    { value: "boolean", label: "Yes/No", label_he: "כן/לא" },
    { value: "select", label: "Choice", label_he: "בחירה מרשימה" },
  ],
  'mix-tracks': [
    { value: "prime", label: "Prime", label_he: "פריים" },
    { value: "fixed_unlinked", label: "Fixed, unlinked", label_he: "קבועה לא צמודה" },
    { value: "fixed_linked", label: "Fixed, CPI-linked", label_he: "קבועה צמודה" },
    { value: "variable_5_unlinked", label: "Variable every 5 years, unlinked", label_he: "משתנה כל 5 לא צמודה" },
    { value: "variable_5_linked", label: "Variable every 5 years, CPI-linked", label_he: "משתנה כל 5 צמודה" },
    { value: "foreign_currency", label: "Foreign currency", label_he: "מט\"ח" },
    { value: "eligibility", label: "Eligibility loan", label_he: "הלוואת זכאות" },
  ],
  'mix-indexes': [
    { value: "cpi", label: "Consumer price index", label_he: "מדד המחירים לצרכן" },
    { value: "usd", label: "US dollar", label_he: "דולר" },
    { value: "eur", label: "Euro", label_he: "אירו" },
    { value: "none", label: "No index", label_he: "ללא הצמדה" },
  ],
  'analysis-types': [
    { value: "affordability", label: "Affordability", label_he: "כושר החזר" },
    { value: "comparison", label: "Offer comparison", label_he: "השוואת הצעות" },
    { value: "refinance", label: "Refinance check", label_he: "כדאיות מחזור" },
    { value: "other", label: "Other", label_he: "אחר" },
  ],
  'timeline-event-types': [
    { value: "file_created", label: "File created", label_he: "תיק נפתח" },
    { value: "status_changed", label: "Status changed", label_he: "שינוי סטטוס" },
    { value: "assigned", label: "Assignee changed", label_he: "שינוי אחראי" },
    { value: "borrower_added", label: "Borrower added", label_he: "לווה נוסף" },
    { value: "note_added", label: "Note added", label_he: "הערה נוספה" },
    { value: "task_created", label: "Task created", label_he: "משימה נוצרה" },
    { value: "task_completed", label: "Task completed", label_he: "משימה הושלמה" },
    { value: "reminder_sent", label: "Reminder sent", label_he: "תזכורת נשלחה" },
    { value: "document_status_changed", label: "Document status changed", label_he: "עדכון סטטוס מסמך" },
    { value: "charge_created", label: "Charge created", label_he: "חיוב נוצר" },
    { value: "payment_recorded", label: "Payment recorded", label_he: "תשלום נרשם" },
    { value: "charge_paid", label: "Charge paid", label_he: "חיוב שולם" },
    { value: "milestone_completed", label: "Milestone completed", label_he: "אבן דרך הושלמה" },
  ],
} as const satisfies Record<string, ReadonlyArray<{ value: string; label: string; label_he: string }>>;

export type SystemListName = keyof typeof SYSTEM_LISTS;
export type SystemListValue<Name extends SystemListName> = (typeof SYSTEM_LISTS)[Name][number]['value'];

export function isSystemListName(name: string): name is SystemListName {
  return Object.prototype.hasOwnProperty.call(SYSTEM_LISTS, name);
}

/** The values of a list, for a validator's enum. */
export function listValues<Name extends SystemListName>(name: Name): [SystemListValue<Name>, ...SystemListValue<Name>[]] {
  return SYSTEM_LISTS[name].map((entry) => entry.value) as unknown as [SystemListValue<Name>, ...SystemListValue<Name>[]];
}
