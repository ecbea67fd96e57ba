/**
 * Invoice and credit note numbers: `INV-<store>-000001` and `CN-<store>-000001`, test mode
 * prefixed `TEST-`. Each store, environment and kind counts in its own gapless sequence; the
 * store's part makes the numbers unique across the operator.
 */
import { sql } from 'drizzle-orm';
import type { Transaction } from '@/db/client';
import { documentSequences, stores, type DocumentKind } from '@/db/schema';
import type { Scope } from '../kit/scope';

const KIND_PREFIX: Record<DocumentKind, string> = { invoice: 'INV', credit_note: 'CN' };

/** 36^6: six base-36 characters. */
const STORE_CODE_SPACE = 2_176_782_336;
/** Prime, so coprime with 36^6: multiplying by it permutes the code space. */
const STORE_CODE_MULTIPLIER = 1_000_003;

/**
 * The store's six-character code, from its operator-wide number through a fixed permutation of
 * the code space: distinct stores never share a code (a permutation is one-to-one), and the
 * codes do not read as a count of the operator's stores.
 */
export function storeCode(storeNumber: number): string {
  const permuted = (BigInt(storeNumber) * BigInt(STORE_CODE_MULTIPLIER)) % BigInt(STORE_CODE_SPACE);
  return permuted.toString(36).toUpperCase().padStart(6, '0');
}

export function documentNumber(kind: DocumentKind, scope: Scope, storeNumber: number, sequence: number): string {
  return `${scope.livemode ? '' : 'TEST-'}${KIND_PREFIX[kind]}-${storeCode(storeNumber)}-${String(sequence).padStart(6, '0')}`;
}

/**
 * The next number of a sequence, taken inside the issuing transaction. The upsert locks the
 * sequence's row until that transaction ends, so concurrent issuers (any instance) take numbers
 * one at a time; a rollback undoes the increment, so a payment that fails to commit leaves no gap.
 * Callers take it last, after their own row locks, so no two transactions wait on each other in
 * a cycle.
 */
export async function nextDocumentNumber(tx: Transaction, kind: DocumentKind, scope: Scope): Promise<string> {
  const [number] = await nextDocumentNumbers(tx, kind, scope, 1);
  return number!;
}

/** nextDocumentNumber for `count` documents issued together: consecutive numbers, in one statement. */
export async function nextDocumentNumbers(tx: Transaction, kind: DocumentKind, scope: Scope, count: number): Promise<string[]> {
  const [row] = await tx
    .insert(documentSequences)
    .values({ storeId: scope.storeId, livemode: scope.livemode, kind, lastNumber: count })
    .onConflictDoUpdate({
      target: [documentSequences.storeId, documentSequences.livemode, documentSequences.kind],
      set: { lastNumber: sql`${documentSequences.lastNumber} + ${count}` },
    })
    // The store's number in the same round trip: the lock is held from here to commit.
    .returning({ lastNumber: documentSequences.lastNumber, storeNumber: sql<number>`(select ${stores.number} from ${stores} where ${stores.id} = ${scope.storeId})` });
  return Array.from({ length: count }, (_, index) => documentNumber(kind, scope, row!.storeNumber, row!.lastNumber - count + 1 + index));
}
