import type { Business, BusinessOfficer } from '@/api/app-config';
import { ko } from '@/i18n/ko';

/** One fact of the operator, as the pages list it. */
export interface BusinessRow {
  label: string;
  value: string;
}

function officerText(officer: BusinessOfficer): string {
  const person = ko.business.officer(officer.name, officer.position);
  return officer.email ? `${person} · ${officer.email}` : person;
}

/**
 * The operator's facts that are configured, in the order a Korean business footer lists them;
 * a fact the server does not tell is left out, never shown as a placeholder. The officers come
 * last, when asked for.
 */
export function businessRows(business: Business | undefined, { officers = false } = {}): BusinessRow[] {
  if (!business) return [];
  const facts: [string, string | undefined][] = [
    [ko.business.name, business.name],
    [ko.business.representative, business.representative],
    [ko.business.registrationNumber, business.registrationNumber],
    [ko.business.mailOrderNumber, business.mailOrderNumber],
    [ko.business.address, business.address],
    [ko.business.phone, business.phone],
    [ko.business.email, business.email],
    [ko.business.hosting, business.hosting],
  ];
  if (officers) {
    facts.push(
      [ko.business.youthOfficer, business.youthOfficer ? officerText(business.youthOfficer) : undefined],
      [ko.business.privacyOfficer, business.privacyOfficer ? officerText(business.privacyOfficer) : undefined],
    );
  }
  return facts.flatMap(([label, value]) => (value ? [{ label, value }] : []));
}
