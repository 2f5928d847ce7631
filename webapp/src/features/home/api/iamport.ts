/** What PortOne V1's payment window (`IMP.request_pay`) answers. */
export interface PaymentWindowAnswer {
  success?: boolean;
  imp_uid?: string | null;
  merchant_uid: string;
  error_msg?: string | null;
}

interface Iamport {
  init(merchantCode: string): void;
  request_pay(params: Record<string, unknown>, callback: (answer: PaymentWindowAnswer) => void): void;
}

declare global {
  interface Window {
    IMP?: Iamport;
  }
}

const SCRIPT = 'https://cdn.iamport.kr/v1/iamport.js';

let loading: Promise<Iamport> | null = null;

/** Loads PortOne V1's script once, when a payment window is first needed. */
export function loadIamport(): Promise<Iamport> {
  if (window.IMP) return Promise.resolve(window.IMP);
  loading ??= new Promise<Iamport>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = SCRIPT;
    script.async = true;
    script.onload = () => {
      if (window.IMP) resolve(window.IMP);
      else reject(new Error('IMP missing'));
    };
    script.onerror = () => {
      loading = null;
      reject(new Error('iamport.js failed to load'));
    };
    document.head.append(script);
  });
  return loading;
}
