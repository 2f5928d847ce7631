import type { Business } from '@/api/app-config';
import { operatorAsTopic, withdrawal } from './business';
import type { TermsDocument } from './types';

export function notificationConsent(business: Business): TermsDocument {
  return {
    slug: 'notification-consent',
    title: '알림 수신 동의',
    effectiveDate: '2026-12-01',
    required: false,
    intro:
      `${operatorAsTopic(business)} 서비스 소식과 이벤트를 알려 드리기 위해 아래와 같이 알림 수신 동의를 받습니다. 이 동의는 선택 사항입니다.`,
    sections: [
      {
        heading: '1. 목적',
        paragraphs: [
          '약관이나 개인정보 처리방침의 변경, 이용 제한, 결제와 환불 등 회원의 권리·의무와 관련된 안내는 이 동의와 관계없이 보내 드립니다.',
        ],
        items: [
          '매일 저녁 8시 서비스가 문을 열 때의 알림(마이페이지에서 ‘8시에 알려주기’를 켠 기기에만)',
          '새로운 기능, 운영 시간 변경 등 서비스 소식 안내',
          '이벤트와 혜택 안내',
        ],
      },
      {
        heading: '2. 항목과 수신 방법',
        paragraphs: [
          '알림은 서비스 안의 알림이나 문자 메시지(SMS)로 보내 드리며, 문자 메시지 발송 업무는 솔라피(SOLAPI)에 위탁합니다.',
          '8시 알림은 웹 푸시로 보내 드립니다. 알림 내용은 암호화되어 사용하시는 브라우저의 푸시 서비스(Google, Mozilla, Apple, Microsoft 중 브라우저가 정한 곳)를 거쳐 기기에 전달되며, 푸시 서비스는 내용을 읽을 수 없습니다.',
        ],
        items: ['아이디', '휴대폰 번호(문자 메시지로 보내는 경우)', '기기의 푸시 구독 정보(알림 주소와 암호화 키, 8시 알림을 켠 경우)'],
      },
      {
        heading: '3. 광고성 정보의 전송 기준',
        paragraphs: [
          '이벤트와 혜택 안내처럼 영리 목적의 광고성 정보는 「정보통신망 이용촉진 및 정보보호 등에 관한 법률」 제50조에 따라 다음 기준을 지켜 보냅니다.',
        ],
        items: [
          '광고성 정보에는 “(광고)” 표시와 함께 수신을 거부하거나 동의를 철회하는 방법을 안내합니다.',
          '별도의 야간 수신 동의를 받지 않은 경우 오후 9시부터 다음 날 오전 8시까지는 광고성 정보를 보내지 않습니다.',
          '수신 동의, 수신 거부 또는 동의 철회를 처리한 경우 그 결과를 14일 이내에 알려 드립니다.',
          '2년마다 회원의 수신 동의 여부를 확인합니다.',
        ],
      },
      {
        heading: '4. 보유 및 이용 기간',
        paragraphs: [
          '동의를 철회하거나 회원 탈퇴할 때까지 보유하고 이용합니다.',
          '기기의 푸시 구독 정보는 그 기기에서 8시 알림을 끄거나 로그아웃할 때, 동의를 철회하거나 탈퇴할 때, 또는 푸시 서비스가 구독이 끝났다고 알려 올 때 바로 지웁니다.',
        ],
      },
      {
        heading: '5. 동의를 거부할 권리',
        paragraphs: [
          '회원은 이 동의를 거부할 권리가 있으며, 동의하지 않아도 서비스 이용에는 제한이 없습니다. 다만, 동의하지 않으면 서비스 소식과 이벤트 안내를 받을 수 없습니다.',
          withdrawal(business),
        ],
      },
    ],
  };
}
