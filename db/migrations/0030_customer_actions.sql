CREATE TABLE "cancellations" (
	"id" text PRIMARY KEY NOT NULL,
	"declared_at" timestamp with time zone NOT NULL,
	"email" text NOT NULL,
	"number" text,
	"name" text NOT NULL,
	"reason" text,
	"cancel_at" text NOT NULL,
	"language" text NOT NULL,
	"subscription_ids" json NOT NULL,
	CONSTRAINT "cancellations_cancel_at_check" CHECK ("cancellations"."cancel_at" in ('period_end', 'asap')),
	CONSTRAINT "cancellations_language_check" CHECK ("cancellations"."language" in ('en', 'de'))
);
--> statement-breakpoint
CREATE TABLE "payment_method_updates" (
	"id" text PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"status" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"amount" integer NOT NULL,
	"amount_tax" integer DEFAULT 0 NOT NULL,
	"tax_rate" numeric(5, 2),
	"cycle" integer,
	"attempt" integer,
	"failure_code" text,
	"card_brand" text,
	"card_last4" text,
	"recurring_id" text,
	"gateway_payment_id" text,
	"buyer_ip" text,
	"buyer_user_agent" text,
	"created_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"leased_until" timestamp with time zone,
	CONSTRAINT "payment_method_updates_status_check" CHECK ("payment_method_updates"."status" in ('processing', 'unknown', 'requires_action', 'succeeded', 'declined'))
);
--> statement-breakpoint
ALTER TABLE "emails" DROP CONSTRAINT "emails_template_check";--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "card_brand" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "card_last4" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "cancel_at_period_end" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "cancel_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "cancellation_id" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "cancellation_declared_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "cancellation_type" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "cancellation_reason" text;--> statement-breakpoint
ALTER TABLE "payment_method_updates" ADD CONSTRAINT "payment_method_updates_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cancellations_list_idx" ON "cancellations" USING btree ("declared_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "cancellations_email_idx" ON "cancellations" USING btree (lower("email"),"declared_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "payment_method_updates_idempotency_unique" ON "payment_method_updates" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "payment_method_updates_subscription_idx" ON "payment_method_updates" USING btree ("subscription_id");--> statement-breakpoint
CREATE INDEX "payment_method_updates_open_idx" ON "payment_method_updates" USING btree ("created_at") WHERE "payment_method_updates"."status" in ('processing', 'unknown', 'requires_action');--> statement-breakpoint
CREATE INDEX "subscriptions_email_idx" ON "subscriptions" USING btree (lower("customer_email"));--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_cancellation_type_check" CHECK ("subscriptions"."cancellation_type" in ('ordinary', 'extraordinary'));--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_template_check" CHECK ("emails"."template" in ('receipt', 'payment_failed', 'renewal_reminder', 'refund', 'subscription_canceled', 'withdrawal_received', 'bank_account_changed', 'payout_failed', 'dispute_created', 'cancellation_received'));--> statement-breakpoint
UPDATE "subscriptions" s SET "card_brand" = c."card_brand", "card_last4" = c."card_last4"
FROM (
	SELECT DISTINCT ON ("subscription_id") "subscription_id", "card_brand", "card_last4"
	FROM "subscription_charges"
	WHERE "status" = 'succeeded' AND "card_last4" IS NOT NULL
	ORDER BY "subscription_id", "cycle" DESC, "attempt" DESC
) c
WHERE c."subscription_id" = s."id";
