CREATE TABLE "file_downloads" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"order_line_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "withdrawals" (
	"order_id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"status" text NOT NULL,
	"customer_name" text NOT NULL,
	"customer_email" text NOT NULL,
	"reason" text,
	"requested_at" timestamp with time zone NOT NULL,
	"refund_due_by" timestamp with time zone NOT NULL,
	CONSTRAINT "withdrawals_status_check" CHECK ("withdrawals"."status" in ('requested', 'refunded'))
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "withdrawal_waiver_accepted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "withdrawal_waiver_text_version" text;--> statement-breakpoint
ALTER TABLE "file_downloads" ADD CONSTRAINT "file_downloads_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_downloads" ADD CONSTRAINT "file_downloads_order_line_id_order_lines_id_fk" FOREIGN KEY ("order_line_id") REFERENCES "public"."order_lines"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD CONSTRAINT "withdrawals_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD CONSTRAINT "withdrawals_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "file_downloads_line_idx" ON "file_downloads" USING btree ("order_line_id");--> statement-breakpoint
CREATE INDEX "withdrawals_list_idx" ON "withdrawals" USING btree ("store_id","livemode","requested_at" DESC NULLS LAST,"order_id" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_withdrawal_waiver_whole" CHECK (("orders"."withdrawal_waiver_accepted_at" is null) = ("orders"."withdrawal_waiver_text_version" is null));