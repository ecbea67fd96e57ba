CREATE TABLE "subscription_charges" (
	"id" text PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"cycle" integer NOT NULL,
	"attempt" integer NOT NULL,
	"idempotency_key" text NOT NULL,
	"amount" integer NOT NULL,
	"status" text NOT NULL,
	"failure_code" text,
	"card_brand" text,
	"card_last4" text,
	"gateway_payment_id" text,
	"scheduled_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "subscription_checkouts" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"status" text NOT NULL,
	"amount" integer NOT NULL,
	"interval" text NOT NULL,
	"interval_count" integer NOT NULL,
	"total_payments" integer NOT NULL,
	"plan_name" text NOT NULL,
	"price_id" text,
	"product_id" text,
	"customer_email" text NOT NULL,
	"customer_name" text,
	"success_url" text,
	"metadata" json NOT NULL,
	"subscription_id" text,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "portal_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"scope" text NOT NULL,
	"customer_id" text,
	"order_id" text,
	"subscription_id" text,
	"token_hash" text NOT NULL,
	"metadata" json NOT NULL,
	"access_count" integer DEFAULT 0 NOT NULL,
	"last_accessed_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"object_id" text NOT NULL,
	"sequence" integer NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"last_response_status" integer,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_delivery_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"response_status" integer,
	"error" text,
	"duration_ms" integer NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"url" text NOT NULL,
	"events" json,
	"created_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"sequence" bigserial NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"type" text NOT NULL,
	"object_id" text NOT NULL,
	"payload" json NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "payments_made" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "plan_name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "checkout_id" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "cancel_reason" text;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD CONSTRAINT "subscription_checkouts_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD CONSTRAINT "subscription_checkouts_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portal_sessions" ADD CONSTRAINT "portal_sessions_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portal_sessions" ADD CONSTRAINT "portal_sessions_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."webhook_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_charges_cycle_unique" ON "subscription_charges" USING btree ("subscription_id","cycle","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_charges_idempotency_unique" ON "subscription_charges" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "subscription_charges_open_idx" ON "subscription_charges" USING btree ("created_at") WHERE "subscription_charges"."status" in ('processing', 'unknown');--> statement-breakpoint
CREATE INDEX "subscription_checkouts_store_idx" ON "subscription_checkouts" USING btree ("store_id","livemode","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "portal_sessions_token_unique" ON "portal_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "portal_sessions_customer_idx" ON "portal_sessions" USING btree ("customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_endpoint_unique" ON "webhook_deliveries" USING btree ("event_id","endpoint_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_order_idx" ON "webhook_deliveries" USING btree ("endpoint_id","object_id","sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_delivery_attempts_unique" ON "webhook_delivery_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_store_idx" ON "webhook_endpoints" USING btree ("store_id","livemode");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_sequence_unique" ON "webhook_events" USING btree ("sequence");--> statement-breakpoint
CREATE INDEX "webhook_events_object_idx" ON "webhook_events" USING btree ("object_id","sequence");--> statement-breakpoint
CREATE INDEX "subscriptions_customer_idx" ON "subscriptions" USING btree ("customer_id");--> statement-breakpoint
CREATE INDEX "subscriptions_due_idx" ON "subscriptions" USING btree ("next_billing_at") WHERE "subscriptions"."status" in ('active', 'past_due');