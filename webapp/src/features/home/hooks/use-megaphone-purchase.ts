import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { toast } from 'sonner';
import { useSetMegaphoneCount } from '@/api/megaphones';
import { ko } from '@/i18n/ko';
import { loadIamport } from '../api/iamport';
import { demoPay, preparePayment, verifyPayment, type PreparedOrder } from '../api/megaphone-payments';

/** Where a phone's payment window comes back to (PortOne adds imp_uid, merchant_uid, imp_success). */
const RETURN_PATH = '/main';
const ITEM_PARAM = 'megaphone_item';

/** Asks the server to check a finished payment and grant its megaphones; tells the user either way. */
async function finish(
  setCount: (count: number) => unknown,
  impUid: string,
  merchantUid: string,
  item: string,
): Promise<void> {
  const outcome = await verifyPayment({ imp_uid: impUid, merchant_uid: merchantUid, item });
  if (outcome.ok) {
    setCount(outcome.data.count);
    toast.success(ko.megaphone.granted(outcome.data.count));
  } else {
    toast.error(outcome.network ? ko.megaphone.error : ko.megaphone.verifyFailed(outcome.message ?? ko.mypage.unknownError));
  }
}

/**
 * Buying a megaphone pack: the server issues the order, then PortOne's payment window takes the
 * card (in demo mode, a demo checkout without one), then the server checks the payment with
 * PortOne and grants the pack. The browser's word alone never grants anything.
 */
export function useMegaphonePurchase(buyerName: string | undefined) {
  const [busy, setBusy] = useState<string | null>(null);
  const [demoOrder, setDemoOrder] = useState<PreparedOrder | null>(null);
  const setCount = useSetMegaphoneCount();

  async function buy(item: string) {
    setBusy(item);
    const prepared = await preparePayment(item);
    if (!prepared.ok) {
      toast.error(prepared.network ? ko.megaphone.error : ko.megaphone.payFailed(prepared.message ?? ko.mypage.unknownError));
      setBusy(null);
      return;
    }
    const order = prepared.data;
    if (order.demo) {
      setDemoOrder(order);
      return;
    }
    try {
      const iamport = await loadIamport();
      iamport.init(order.impCode);
      const back = new URL(RETURN_PATH, window.location.origin);
      back.searchParams.set(ITEM_PARAM, order.item);
      iamport.request_pay(
        {
          pg: order.pg,
          pay_method: 'card',
          merchant_uid: order.merchantUid,
          name: order.name,
          amount: order.amount,
          buyer_name: buyerName,
          m_redirect_url: back.toString(),
        },
        (answer) => {
          if (answer.success && answer.imp_uid) {
            void finish(setCount, answer.imp_uid, order.merchantUid, order.item).finally(() => {
              setBusy(null);
            });
          } else {
            toast.error(answer.error_msg ? ko.megaphone.payFailed(answer.error_msg) : ko.megaphone.payCancelled);
            setBusy(null);
          }
        },
      );
    } catch {
      toast.error(ko.megaphone.windowFailed);
      setBusy(null);
    }
  }

  async function confirmDemo() {
    if (!demoOrder) return;
    const order = demoOrder;
    setDemoOrder(null);
    const paid = await demoPay(order.merchantUid);
    if (paid.ok) {
      await finish(setCount, paid.data.impUid, order.merchantUid, order.item);
    } else {
      toast.error(paid.network ? ko.megaphone.error : ko.megaphone.payFailed(paid.message ?? ko.mypage.unknownError));
    }
    setBusy(null);
  }

  function cancelDemo() {
    setDemoOrder(null);
    setBusy(null);
    toast.error(ko.megaphone.payCancelled);
  }

  return { buy, busy, demoOrder, confirmDemo, cancelDemo };
}

/**
 * On a phone the payment window leaves the app and comes back to /main with its answer in the
 * address: the payment is checked once, and the address cleaned.
 */
export function usePaymentReturn() {
  const location = useLocation();
  const navigate = useNavigate();
  const handled = useRef(false);
  const setCount = useSetMegaphoneCount();

  useEffect(() => {
    const params = new URLSearchParams(location.search);
    const item = params.get(ITEM_PARAM);
    const merchantUid = params.get('merchant_uid');
    if (handled.current || item === null || merchantUid === null) return;
    handled.current = true;
    const impUid = params.get('imp_uid');
    const success = (params.get('imp_success') ?? params.get('success')) === 'true';
    void navigate(RETURN_PATH, { replace: true });
    if (success && impUid) {
      void finish(setCount, impUid, merchantUid, item);
    } else {
      const message = params.get('error_msg');
      toast.error(message ? ko.megaphone.payFailed(message) : ko.megaphone.payCancelled);
    }
  }, [location.search, navigate, setCount]);
}
