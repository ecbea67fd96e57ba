CREATE TABLE "emails" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"template" text NOT NULL,
	"to_address" text NOT NULL,
	"language" text NOT NULL,
	"data" json NOT NULL,
	"attachments" json NOT NULL,
	"order_id" text,
	"subscription_id" text,
	"invoice_id" text,
	"credit_note_id" text,
	"dedupe_key" text,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"leased_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "emails_template_check" CHECK ("emails"."template" in ('receipt', 'payment_failed', 'renewal_reminder', 'refund', 'subscription_canceled', 'withdrawal_received')),
	CONSTRAINT "emails_status_check" CHECK ("emails"."status" in ('pending', 'sent', 'failed')),
	CONSTRAINT "emails_language_check" CHECK ("emails"."language" in ('en', 'de'))
);
--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "emails_dedupe_unique" ON "emails" USING btree ("dedupe_key") WHERE "emails"."dedupe_key" is not null;--> statement-breakpoint
CREATE INDEX "emails_list_idx" ON "emails" USING btree ("store_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "emails_to_list_idx" ON "emails" USING btree ("store_id","livemode",lower("to_address"),"created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "emails_due_idx" ON "emails" USING btree ("livemode","next_attempt_at") WHERE "emails"."status" = 'pending';