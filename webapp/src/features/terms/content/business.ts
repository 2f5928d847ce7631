import type { Business, BusinessOfficer } from '@/api/app-config';
import { subjectParticle, topicParticle } from '@/lib/korean';

/**
 * How the documents name the operator and its contacts. The facts come from the server's
 * configuration; a fact it does not tell is left out of the sentence, never shown as a
 * placeholder.
 */

/** The operator as the documents name it: the trade name, or a description without one. */
function operatorName(business: Business): string {
  return business.name ?? '텔레파시를 운영하는 사업자';
}

/** “○○(이하 “운영자”)은/는”: the operator named and defined, as the topic of a sentence. */
export function operatorAsTopic(business: Business): string {
  const name = operatorName(business);
  return `${name}(이하 “운영자”)${topicParticle(name)}`;
}

/** “○○(이하 “운영자”)이/가”: the operator named and defined, as the subject of a clause. */
export function operatorAsSubject(business: Business): string {
  const name = operatorName(business);
  return `${name}(이하 “운영자”)${subjectParticle(name)}`;
}

/** “운영자 이메일(help@…)”, or null when no email is configured. */
export function operatorEmail(business: Business): string | null {
  return business.email ? `운영자 이메일(${business.email})` : null;
}

/** “이서연(운영 책임자)” */
export function officerName(officer: BusinessOfficer): string {
  return officer.position ? `${officer.name}(${officer.position})` : officer.name;
}

/** Lines naming an officer and how to reach them, falling back on the operator's email. */
export function officerLines(title: string, officer: BusinessOfficer | undefined, business: Business): string[] {
  const lines: string[] = [];
  if (officer) lines.push(`${title}: ${officerName(officer)}`);
  const email = officer?.email ?? business.email;
  if (email) lines.push(`이메일: ${email}`);
  return lines;
}

/** How an optional consent is withdrawn: in the service, or by writing to the operator. */
export function withdrawal(business: Business): string {
  const email = operatorEmail(business);
  return email
    ? `동의는 서비스 안의 설정이나 ${email}로 언제든지 철회할 수 있습니다.`
    : '동의는 서비스 안의 설정에서 언제든지 철회할 수 있습니다.';
}
