CREATE TABLE "license_validations" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"license_key_id" text NOT NULL,
	"order_id" text,
	"result" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "license_validations_result_check" CHECK ("license_validations"."result" in ('active', 'revoked'))
);
--> statement-breakpoint
CREATE TABLE "disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"order_id" text NOT NULL,
	"amount" integer NOT NULL,
	"amount_tax" integer NOT NULL,
	"fee" integer NOT NULL,
	"reason" text NOT NULL,
	"status" text NOT NULL,
	"evidence_customer_communication" text,
	"evidence_product_description" text,
	"evidence_uncategorized_text" text,
	"evidence_due_by" timestamp with time zone NOT NULL,
	"evidence_submitted_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "disputes_amount_positive" CHECK ("disputes"."amount" > 0 and "disputes"."amount_tax" >= 0 and "disputes"."amount_tax" <= "disputes"."amount" and "disputes"."fee" >= 0),
	CONSTRAINT "disputes_reason_check" CHECK ("disputes"."reason" in ('fraudulent', 'product_not_received', 'duplicate', 'subscription_canceled', 'unrecognized', 'general')),
	CONSTRAINT "disputes_status_check" CHECK ("disputes"."status" in ('needs_response', 'under_review', 'won', 'lost')),
	CONSTRAINT "disputes_submitted_by_status" CHECK (case "disputes"."status" when 'needs_response' then "disputes"."evidence_submitted_at" is null when 'under_review' then "disputes"."evidence_submitted_at" is not null else true end),
	CONSTRAINT "disputes_closed_iff_won_or_lost" CHECK (("disputes"."closed_at" is not null) = ("disputes"."status" in ('won', 'lost')))
);
--> statement-breakpoint
ALTER TABLE "emails" DROP CONSTRAINT "emails_template_check";--> statement-breakpoint
ALTER TABLE "credit_notes" ALTER COLUMN "refund_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD COLUMN "buyer_ip" text;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD COLUMN "buyer_user_agent" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "dispute_id" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "buyer_ip" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "buyer_user_agent" text;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD COLUMN "dispute_id" text;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD COLUMN "reason" text DEFAULT 'refund' NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "dispute_id" text;--> statement-breakpoint
ALTER TABLE "license_validations" ADD CONSTRAINT "license_validations_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "license_validations" ADD CONSTRAINT "license_validations_license_key_id_license_keys_id_fk" FOREIGN KEY ("license_key_id") REFERENCES "public"."license_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "license_validations_order_idx" ON "license_validations" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "disputes_order_unique" ON "disputes" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "disputes_list_idx" ON "disputes" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "disputes_status_list_idx" ON "disputes" USING btree ("store_id","livemode","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "disputes_due_idx" ON "disputes" USING btree ("evidence_due_by") WHERE "disputes"."status" in ('needs_response', 'under_review');--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_dispute_id_disputes_id_fk" FOREIGN KEY ("dispute_id") REFERENCES "public"."disputes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_notes_dispute_unique" ON "credit_notes" USING btree ("dispute_id");--> statement-breakpoint
CREATE UNIQUE INDEX "balance_transactions_dispute_cause_unique" ON "balance_transactions" USING btree ("source_id","description") WHERE "balance_transactions"."source_type" = 'dispute';--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_reason_check" CHECK ("credit_notes"."reason" in ('refund', 'dispute_lost'));--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_reverses_one" CHECK (case "credit_notes"."reason" when 'refund' then "credit_notes"."refund_id" is not null and "credit_notes"."dispute_id" is null else "credit_notes"."dispute_id" is not null and "credit_notes"."refund_id" is null end);--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_template_check" CHECK ("emails"."template" in ('receipt', 'payment_failed', 'renewal_reminder', 'refund', 'subscription_canceled', 'withdrawal_received', 'bank_account_changed', 'payout_failed', 'dispute_created'));