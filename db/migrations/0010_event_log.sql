DROP INDEX "webhook_events_object_idx";--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "object_sequence" integer;--> statement-breakpoint
UPDATE "webhook_events" SET "object_sequence" = numbered."n" FROM (SELECT "id", row_number() OVER (PARTITION BY "object_id" ORDER BY "sequence") AS "n" FROM "webhook_events") AS numbered WHERE numbered."id" = "webhook_events"."id";--> statement-breakpoint
ALTER TABLE "webhook_events" ALTER COLUMN "object_sequence" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_object_sequence_unique" ON "webhook_events" USING btree ("object_id","object_sequence");--> statement-breakpoint
CREATE INDEX "webhook_events_store_sequence_idx" ON "webhook_events" USING btree ("store_id","livemode","sequence" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhook_events_store_type_idx" ON "webhook_events" USING btree ("store_id","livemode","type","sequence" DESC NULLS LAST);
