CREATE TABLE "bank_accounts" (
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"iban" text NOT NULL,
	"account_holder" text NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"saved_at" timestamp with time zone NOT NULL,
	CONSTRAINT "bank_accounts_store_id_livemode_pk" PRIMARY KEY("store_id","livemode")
);
--> statement-breakpoint
CREATE TABLE "payout_exports" (
	"message_id" text PRIMARY KEY NOT NULL,
	"execution_date" date NOT NULL,
	"document" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "emails" DROP CONSTRAINT "emails_template_check";--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "language" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "payout_id" text;--> statement-breakpoint
-- Edited by hand: payouts made so far were test payouts to the test IBAN (live ones were held without a bank account).
ALTER TABLE "payouts" ADD COLUMN "iban" text NOT NULL DEFAULT 'DE89370400440532013000';--> statement-breakpoint
ALTER TABLE "payouts" ALTER COLUMN "iban" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "export_message_id" text;--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "failed_at" timestamp with time zone;--> statement-breakpoint
-- Edited by hand: a payout failed before now is dated at its creation; no bank account was saved since, so its hold stays.
UPDATE "payouts" SET "failed_at" = "created_at" WHERE "status" = 'failed';--> statement-breakpoint
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_export_message_id_payout_exports_message_id_fk" FOREIGN KEY ("export_message_id") REFERENCES "public"."payout_exports"("message_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payouts" DROP COLUMN "iban_last4";--> statement-breakpoint
ALTER TABLE "stores" ADD CONSTRAINT "stores_language_check" CHECK ("stores"."language" in ('en', 'de'));--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_template_check" CHECK ("emails"."template" in ('receipt', 'payment_failed', 'renewal_reminder', 'refund', 'subscription_canceled', 'withdrawal_received', 'bank_account_changed', 'payout_failed'));--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_failed_at_iff_failed" CHECK (("payouts"."status" = 'failed') = ("payouts"."failed_at" is not null));--> statement-breakpoint
-- Written by hand below the generated statements (keep it when regenerating): a transfer file
-- given to the bank stays as it was given.
CREATE TRIGGER "payout_exports_immutable" BEFORE UPDATE OR DELETE ON "payout_exports" FOR EACH ROW EXECUTE FUNCTION "refuse_ledger_change"();
