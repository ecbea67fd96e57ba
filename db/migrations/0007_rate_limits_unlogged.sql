-- Rate-limit counters need not survive a crash of the database: an unlogged table writes no WAL,
-- so an upsert commits without waiting for a flush and can share the hot statements'
-- connections (db/client.ts). After a crash PostgreSQL empties it: every window starts afresh.
ALTER TABLE "rate_limits" SET UNLOGGED;
