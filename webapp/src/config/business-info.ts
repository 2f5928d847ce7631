/**
 * Operator facts shown in the footer and written into the terms documents.
 * The terms texts under src/features/terms/content repeat these values word for word; when a value
 * changes here, change it there too. Fields reading '등록 예정' are filled in once the real
 * registration exists; the names are placeholders until the operator is registered.
 */
export const businessInfo = {
  serviceName: '텔레파시',
  operator: '텔레파시 운영팀',
  representative: '한지우',
  email: 'help@telepathy.example',
  businessRegistrationNumber: '등록 예정',
  mailOrderSalesRegistrationNumber: '등록 예정',
  address: '등록 예정',
  phone: '등록 예정',
  hostingProvider: '등록 예정',
  serviceHours: {
    open: '20:00',
    close: '02:00',
    timeZone: 'Asia/Seoul',
    label: '매일 20:00 ~ 02:00 (한국 시간)',
  },
  youthProtectionOfficer: {
    name: '이서연',
    position: '운영 책임자',
    email: 'youth@telepathy.example',
  },
  privacyOfficer: {
    name: '김민준',
    position: '개발 책임자',
    email: 'privacy@telepathy.example',
  },
  subProcessors: [
    { name: '솔라피(SOLAPI)', task: '회원가입과 비밀번호 재설정 인증번호, 알림 수신에 동의한 회원에게 보내는 알림 문자 메시지(SMS) 발송' },
    { name: '포트원(PortOne)', task: '본인인증, 확성기 카드 결제의 처리와 결제 취소' },
    { name: '클라우드 호스팅 사업자(등록 예정)', task: '서비스 서버 운영과 데이터 보관' },
  ],
} as const;

export type BusinessInfo = typeof businessInfo;
