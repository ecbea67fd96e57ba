/** The API shape of a refund, apart from the refunds service so orders can show their refunds. */
import type { refunds } from '@/db/schema';
import { epochSeconds } from '../../clock';
import type { Refund } from './object';

export type RefundRow = typeof refunds.$inferSelect;

export function refundView(row: RefundRow): Refund {
  return {
    id: row.id,
    object: 'refund',
    livemode: row.livemode,
    order_id: row.orderId,
    amount: row.amount,
    currency: 'eur',
    status: row.status,
    credit_note_id: row.creditNoteId,
    created: epochSeconds(row.createdAt),
  };
}
