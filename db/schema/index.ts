export * from './stores';
export * from './products';
export * from './licenses';
export * from './subscriptions';
export * from './audit';
export * from './rate-limits';
