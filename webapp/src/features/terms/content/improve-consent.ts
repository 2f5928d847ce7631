import type { Business } from '@/api/app-config';
import { operatorAsTopic, withdrawal } from './business';
import type { TermsDocument } from './types';

export function improveConsent(business: Business): TermsDocument {
  return {
    slug: 'improve-consent',
    title: '서비스 개선 목적 정보 활용 동의',
    effectiveDate: '2026-12-01',
    required: false,
    intro:
      `${operatorAsTopic(business)} 더 나은 서비스를 만들기 위해 아래와 같이 회원의 이용 정보를 활용하고자 합니다. 이 동의는 선택 사항이며, 동의하지 않아도 서비스의 모든 기능을 똑같이 이용할 수 있습니다.`,
    sections: [
      {
        heading: '1. 활용 목적',
        items: [
          '라운드에 제시하는 단어의 구성과 라운드 진행 방식 개선',
          '연결과 대화 경험을 개선하기 위한 이용 통계 분석',
          '회원이 남긴 기분 피드백을 바탕으로 한 서비스 품질 개선',
        ],
      },
      {
        heading: '2. 활용 항목',
        paragraphs: [
          '운영자는 아래 정보를 개인을 알아볼 수 없도록 익명 처리한 통계 형태로만 활용합니다. 채팅 메시지의 내용과 아이디, 휴대폰 번호, 실명 등 회원을 직접 알아볼 수 있는 정보는 활용하지 않습니다.',
        ],
        items: [
          '서비스 이용 기록: 접속 시간대, 라운드 참여와 단어 선택 현황, 연결 횟수와 대화 시간',
          '기분 피드백',
        ],
      },
      {
        heading: '3. 보유 및 이용 기간',
        paragraphs: [
          '동의를 철회하거나 회원 탈퇴할 때까지 활용하며, 철회하거나 탈퇴한 뒤에는 회원의 정보를 새로 활용하지 않습니다. 다만, 이미 개인을 알아볼 수 없도록 익명 처리되어 작성된 통계 자료는 개인정보에 해당하지 않으므로 계속 보관될 수 있습니다.',
        ],
      },
      {
        heading: '4. 동의를 거부할 권리',
        paragraphs: [
          '회원은 이 동의를 거부할 권리가 있으며, 동의하지 않거나 동의를 철회하더라도 서비스 이용에 어떠한 불이익도 없습니다.',
          withdrawal(business),
        ],
      },
    ],
  };
}
