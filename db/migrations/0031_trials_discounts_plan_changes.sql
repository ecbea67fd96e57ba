CREATE TABLE "plan_changes" (
	"id" text PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"status" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"from_plan" json NOT NULL,
	"to_plan" json NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"credit" integer NOT NULL,
	"charge" integer NOT NULL,
	"amount" integer NOT NULL,
	"amount_tax" integer DEFAULT 0 NOT NULL,
	"tax_rate" numeric(5, 2),
	"failure_code" text,
	"card_brand" text,
	"card_last4" text,
	"gateway_payment_id" text,
	"order_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"leased_until" timestamp with time zone,
	CONSTRAINT "plan_changes_status_check" CHECK ("plan_changes"."status" in ('processing', 'unknown', 'succeeded', 'declined'))
);
--> statement-breakpoint
CREATE TABLE "coupons" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"name" text NOT NULL,
	"percent_off" integer,
	"amount_off" integer,
	"currency" text NOT NULL,
	"duration" text NOT NULL,
	"duration_in_months" integer,
	"max_redemptions" integer,
	"redeem_by" timestamp with time zone,
	"applies_to" json,
	"metadata" json NOT NULL,
	"times_redeemed" integer DEFAULT 0 NOT NULL,
	"redemptions_held" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "coupons_duration_check" CHECK ("coupons"."duration" in ('once', 'repeating', 'forever')),
	CONSTRAINT "coupons_one_amount" CHECK (("coupons"."percent_off" is null) <> ("coupons"."amount_off" is null)),
	CONSTRAINT "coupons_months_for_repeating" CHECK (("coupons"."duration" = 'repeating') = ("coupons"."duration_in_months" is not null)),
	CONSTRAINT "coupons_redemptions" CHECK ("coupons"."times_redeemed" >= 0 and "coupons"."redemptions_held" >= 0 and ("coupons"."max_redemptions" is null or "coupons"."times_redeemed" + "coupons"."redemptions_held" <= "coupons"."max_redemptions"))
);
--> statement-breakpoint
CREATE TABLE "promotion_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"coupon_id" text NOT NULL,
	"code" text NOT NULL,
	"max_redemptions" integer,
	"expires_at" timestamp with time zone,
	"active" boolean NOT NULL,
	"metadata" json NOT NULL,
	"times_redeemed" integer DEFAULT 0 NOT NULL,
	"redemptions_held" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "promotion_codes_redemptions" CHECK ("promotion_codes"."times_redeemed" >= 0 and "promotion_codes"."redemptions_held" >= 0 and ("promotion_codes"."max_redemptions" is null or "promotion_codes"."times_redeemed" + "promotion_codes"."redemptions_held" <= "promotion_codes"."max_redemptions"))
);
--> statement-breakpoint
ALTER TABLE "subscriptions" DROP CONSTRAINT "subscriptions_status_check";--> statement-breakpoint
ALTER TABLE "orders" DROP CONSTRAINT "orders_billing_reason_check";--> statement-breakpoint
ALTER TABLE "emails" DROP CONSTRAINT "emails_template_check";--> statement-breakpoint
DROP INDEX "subscriptions_due_idx";--> statement-breakpoint
ALTER TABLE "payment_method_updates" ADD COLUMN "amount_discount" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_method_updates" ADD COLUMN "amount_credit" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD COLUMN "amount_discount" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD COLUMN "amount_credit" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD COLUMN "redemption_held" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD COLUMN "trial_days" integer;--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD COLUMN "discount" json;--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD COLUMN "allow_promotion_codes" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "anchor_cycle" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "trial_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "trial_end" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "trial_will_end_sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "discount" json;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "discount_end" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "pending_change" json;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "credit_balance" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_lines" ADD COLUMN "amount_discount" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "amount_discount" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "discount" json;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "discount" json;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "allow_promotion_codes" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_attempts" ADD COLUMN "redemption_held" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "amount_discount" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "discount" json;--> statement-breakpoint
ALTER TABLE "plan_changes" ADD CONSTRAINT "plan_changes_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_changes" ADD CONSTRAINT "plan_changes_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupons" ADD CONSTRAINT "coupons_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promotion_codes" ADD CONSTRAINT "promotion_codes_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promotion_codes" ADD CONSTRAINT "promotion_codes_coupon_id_coupons_id_fk" FOREIGN KEY ("coupon_id") REFERENCES "public"."coupons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "plan_changes_idempotency_unique" ON "plan_changes" USING btree ("idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "plan_changes_order_unique" ON "plan_changes" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "plan_changes_subscription_idx" ON "plan_changes" USING btree ("subscription_id");--> statement-breakpoint
CREATE INDEX "plan_changes_open_idx" ON "plan_changes" USING btree ("created_at") WHERE "plan_changes"."status" in ('processing', 'unknown');--> statement-breakpoint
CREATE INDEX "coupons_list_idx" ON "coupons" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "coupons"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "promotion_codes_code_unique" ON "promotion_codes" USING btree ("store_id","livemode",lower("code"));--> statement-breakpoint
CREATE INDEX "promotion_codes_list_idx" ON "promotion_codes" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "promotion_codes_coupon_idx" ON "promotion_codes" USING btree ("coupon_id");--> statement-breakpoint
CREATE INDEX "subscriptions_trial_end_idx" ON "subscriptions" USING btree ("trial_end") WHERE "subscriptions"."status" = 'trialing' and "subscriptions"."trial_will_end_sent_at" is null;--> statement-breakpoint
CREATE INDEX "subscriptions_due_idx" ON "subscriptions" USING btree ("next_billing_at") WHERE "subscriptions"."status" in ('trialing', 'active', 'past_due');--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_credit_balance_check" CHECK ("subscriptions"."credit_balance" >= 0);--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_trial_whole" CHECK (("subscriptions"."trial_start" is null) = ("subscriptions"."trial_end" is null));--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_status_check" CHECK ("subscriptions"."status" in ('trialing', 'active', 'incomplete', 'past_due', 'canceled', 'expired', 'pending', 'suspended'));--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_billing_reason_check" CHECK ("orders"."billing_reason" in ('purchase', 'subscription_create', 'subscription_cycle', 'subscription_update'));--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_template_check" CHECK ("emails"."template" in ('receipt', 'payment_failed', 'renewal_reminder', 'refund', 'subscription_canceled', 'withdrawal_received', 'bank_account_changed', 'payout_failed', 'dispute_created', 'cancellation_received', 'trial_ending'));