CREATE TABLE "payout_settlements" (
	"balance_transaction_id" text PRIMARY KEY NOT NULL,
	"payout_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payouts" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"amount" integer NOT NULL,
	"status" text NOT NULL,
	"failure_reason" text,
	"arrival_date" timestamp with time zone,
	"iban_last4" text NOT NULL,
	"account_holder" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"scheduled_for" timestamp with time zone,
	CONSTRAINT "payouts_status_check" CHECK ("payouts"."status" in ('pending', 'in_transit', 'paid', 'failed', 'canceled')),
	CONSTRAINT "payouts_failure_reason_check" CHECK ("payouts"."failure_reason" in ('account_closed', 'invalid_account', 'name_mismatch', 'bank_rejected')),
	CONSTRAINT "payouts_failure_reason_iff_failed" CHECK (("payouts"."status" = 'failed') = ("payouts"."failure_reason" is not null)),
	CONSTRAINT "payouts_amount_positive" CHECK ("payouts"."amount" > 0)
);
--> statement-breakpoint
DROP INDEX "balance_transactions_cause_unique";--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "payout_schedule_live" text DEFAULT 'weekly' NOT NULL;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "payout_schedule_test" text DEFAULT 'weekly' NOT NULL;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "payouts_scheduled_through_live" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "payouts_scheduled_through_test" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payout_settlements" ADD CONSTRAINT "payout_settlements_balance_transaction_id_balance_transactions_id_fk" FOREIGN KEY ("balance_transaction_id") REFERENCES "public"."balance_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_settlements" ADD CONSTRAINT "payout_settlements_payout_id_payouts_id_fk" FOREIGN KEY ("payout_id") REFERENCES "public"."payouts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payout_settlements_payout_idx" ON "payout_settlements" USING btree ("payout_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payouts_schedule_unique" ON "payouts" USING btree ("store_id","livemode","scheduled_for");--> statement-breakpoint
CREATE INDEX "payouts_list_idx" ON "payouts" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payouts_status_list_idx" ON "payouts" USING btree ("store_id","livemode","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "balance_transactions_cause_unique" ON "balance_transactions" USING btree ("source_id","type") WHERE "balance_transactions"."source_type" in ('order', 'refund', 'payout');--> statement-breakpoint
ALTER TABLE "stores" ADD CONSTRAINT "stores_payout_schedule_live_check" CHECK ("stores"."payout_schedule_live" in ('weekly', 'monthly', 'manual'));--> statement-breakpoint
ALTER TABLE "stores" ADD CONSTRAINT "stores_payout_schedule_test_check" CHECK ("stores"."payout_schedule_test" in ('weekly', 'monthly', 'manual'));--> statement-breakpoint
-- Written by hand below the generated statements (keep it when regenerating): what a payout
-- settled stays recorded, as the entries themselves do.
CREATE TRIGGER "payout_settlements_immutable" BEFORE UPDATE OR DELETE ON "payout_settlements" FOR EACH ROW EXECUTE FUNCTION "refuse_ledger_change"();
