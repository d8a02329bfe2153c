// `field:asc` / `field:desc` ranking rules. SEAM for the search issue: they need each document's
// field value (numbers first, then strings; missing last). Until then rules-from-settings.ts leaves
// them out, so they neither reorder nor add a score entry.

export interface CustomFieldRuleSpec {
  field: string;
  direction: 'asc' | 'desc';
}

const CUSTOM_RULE = /^(.+):(asc|desc)$/;

export function parseCustomFieldRule(name: string): CustomFieldRuleSpec | null {
  const match = CUSTOM_RULE.exec(name);
  return match ? { field: match[1]!, direction: match[2] as 'asc' | 'desc' } : null;
}
