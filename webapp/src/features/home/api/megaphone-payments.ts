import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type PreparedOrder = Schemas['PreparedOrder'];
export type MegaphonePack = Schemas['MegaphonePack'];

/** Issues an order of `item` and registers its amount with the payment provider. */
export function preparePayment(item: string) {
  return settle(api.POST('/payments/prepare', { body: { item } }));
}

/** Asks the server to check a finished payment with the provider and grant its megaphones. */
export function verifyPayment(body: { imp_uid: string; merchant_uid: string; item: string }) {
  return settle(api.POST('/payments/verify', { body }));
}

/** Demo mode: pays an order without a card, as the payment window would. */
export function demoPay(merchantUid: string) {
  return settle(api.POST('/payments/demo-pay', { body: { merchantUid } }));
}
