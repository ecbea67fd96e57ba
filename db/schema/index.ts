export * from './stores';
export * from './products';
export * from './licenses';
export * from './subscriptions';
export * from './audit';
export * from './rate-limits';
export * from './customers';
export * from './orders';
export * from './checkout';
export * from './simulator';
export * from './portal';
export * from './webhooks';
export * from './users';
export * from './invoices';
export * from './emails';
export * from './balance';
export * from './disputes';
export * from './coupons';
export {
  DOCUMENT_LANGUAGES,
  TAX_CATEGORIES,
  TAX_MODES,
  TAX_TREATMENTS,
  type CustomerDetails,
  type DocumentLanguage,
  type TaxCategory,
  type TaxEvidence,
  type TaxMode,
  type TaxTreatment,
} from './columns';
