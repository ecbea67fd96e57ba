DROP INDEX "customers_store_idx";--> statement-breakpoint
DROP INDEX "orders_store_idx";--> statement-breakpoint
DROP INDEX "checkout_sessions_store_idx";--> statement-breakpoint
DROP INDEX "webhook_events_sequence_unique";--> statement-breakpoint
DROP INDEX "webhook_events_object_idx";--> statement-breakpoint
DROP INDEX "webhook_deliveries_event_endpoint_unique";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "resend" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "disabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "secret_generation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "object_sequence" integer;--> statement-breakpoint
UPDATE "webhook_events" SET "object_sequence" = numbered."n" FROM (SELECT "id", row_number() OVER (PARTITION BY "object_id" ORDER BY "sequence") AS "n" FROM "webhook_events") AS numbered WHERE numbered."id" = "webhook_events"."id";--> statement-breakpoint
ALTER TABLE "webhook_events" ALTER COLUMN "object_sequence" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "customers_list_idx" ON "customers" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_list_idx" ON "orders" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_status_list_idx" ON "orders" USING btree ("store_id","livemode","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_customer_list_idx" ON "orders" USING btree ("store_id","livemode","customer_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_email_list_idx" ON "orders" USING btree ("store_id","livemode",lower("customer_email"),"created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "refunds_list_idx" ON "refunds" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "refunds_order_list_idx" ON "refunds" USING btree ("store_id","livemode","order_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "refunds_status_list_idx" ON "refunds" USING btree ("store_id","livemode","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "checkout_sessions_list_idx" ON "checkout_sessions" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "checkout_sessions_status_list_idx" ON "checkout_sessions" USING btree ("store_id","livemode","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "checkout_sessions_payment_status_list_idx" ON "checkout_sessions" USING btree ("store_id","livemode","payment_status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "checkout_sessions_email_list_idx" ON "checkout_sessions" USING btree ("store_id","livemode",lower("customer_email"),"created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "checkout_sessions_open_expiry_idx" ON "checkout_sessions" USING btree ("expires_at") WHERE "checkout_sessions"."status" = 'open';--> statement-breakpoint
CREATE INDEX "portal_sessions_list_idx" ON "portal_sessions" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "portal_sessions_customer_list_idx" ON "portal_sessions" USING btree ("store_id","livemode","customer_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "portal_sessions_scope_list_idx" ON "portal_sessions" USING btree ("store_id","livemode","scope","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" USING btree ("event_id","endpoint_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_log_idx" ON "webhook_deliveries" USING btree ("endpoint_id","sequence" DESC NULLS LAST,"created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_store_pending_idx" ON "webhook_deliveries" USING btree ("store_id","livemode") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_object_sequence_unique" ON "webhook_events" USING btree ("object_id","object_sequence");--> statement-breakpoint
CREATE INDEX "webhook_events_store_sequence_idx" ON "webhook_events" USING btree ("store_id","livemode","sequence");--> statement-breakpoint
CREATE INDEX "webhook_events_store_type_idx" ON "webhook_events" USING btree ("store_id","livemode","type","sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_endpoint_unique" ON "webhook_deliveries" USING btree ("event_id","endpoint_id") WHERE not "webhook_deliveries"."resend";