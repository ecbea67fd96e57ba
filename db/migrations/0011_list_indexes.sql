DROP INDEX "customers_store_idx";--> statement-breakpoint
DROP INDEX "orders_store_idx";--> statement-breakpoint
DROP INDEX "checkout_sessions_store_idx";--> statement-breakpoint
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
CREATE INDEX "portal_sessions_list_idx" ON "portal_sessions" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "portal_sessions_customer_list_idx" ON "portal_sessions" USING btree ("store_id","livemode","customer_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "portal_sessions_scope_list_idx" ON "portal_sessions" USING btree ("store_id","livemode","scope","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);