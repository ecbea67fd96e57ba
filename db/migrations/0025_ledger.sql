CREATE TABLE "balance_transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"type" text NOT NULL,
	"amount" integer NOT NULL,
	"source_type" text,
	"source_id" text,
	"description" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"available_on" timestamp with time zone NOT NULL,
	"recorded_order" bigint GENERATED ALWAYS AS IDENTITY (sequence name "balance_transactions_recorded_order_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	CONSTRAINT "balance_transactions_type_check" CHECK ("balance_transactions"."type" in ('payment', 'tax', 'fee', 'refund', 'dispute', 'dispute_fee', 'dispute_reversal', 'payout', 'payout_failure', 'payout_cancel', 'adjustment')),
	CONSTRAINT "balance_transactions_source_type_check" CHECK ("balance_transactions"."source_type" in ('order', 'refund', 'dispute', 'payout')),
	CONSTRAINT "balance_transactions_source_whole" CHECK (("balance_transactions"."source_type" is null) = ("balance_transactions"."source_id" is null)),
	CONSTRAINT "balance_transactions_adjustment_unsourced" CHECK (("balance_transactions"."type" = 'adjustment') = ("balance_transactions"."source_type" is null)),
	CONSTRAINT "balance_transactions_adjustment_nonzero" CHECK ("balance_transactions"."type" <> 'adjustment' or "balance_transactions"."amount" <> 0),
	CONSTRAINT "balance_transactions_available_after_created" CHECK ("balance_transactions"."available_on" >= "balance_transactions"."created_at")
);
--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "fee_basis_points" integer;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "fee_fixed" integer;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "fee_basis_points" integer;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "fee_fixed" integer;--> statement-breakpoint
ALTER TABLE "balance_transactions" ADD CONSTRAINT "balance_transactions_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "balance_transactions_recorded_order_unique" ON "balance_transactions" USING btree ("recorded_order");--> statement-breakpoint
CREATE UNIQUE INDEX "balance_transactions_cause_unique" ON "balance_transactions" USING btree ("source_id","type") WHERE "balance_transactions"."source_type" in ('order', 'refund');--> statement-breakpoint
CREATE INDEX "balance_transactions_list_idx" ON "balance_transactions" USING btree ("store_id","livemode","recorded_order" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "balance_transactions_type_list_idx" ON "balance_transactions" USING btree ("store_id","livemode","type","recorded_order" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "balance_transactions_source_list_idx" ON "balance_transactions" USING btree ("store_id","livemode","source_id","recorded_order" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "balance_transactions_available_idx" ON "balance_transactions" USING btree ("store_id","livemode","available_on","amount");--> statement-breakpoint
ALTER TABLE "stores" ADD CONSTRAINT "stores_fee_basis_points_range" CHECK ("stores"."fee_basis_points" between 0 and 10000);--> statement-breakpoint
ALTER TABLE "stores" ADD CONSTRAINT "stores_fee_fixed_range" CHECK ("stores"."fee_fixed" >= 0);--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_fee_rates_whole" CHECK (("orders"."fee_basis_points" is null) = ("orders"."fee_fixed" is null));--> statement-breakpoint
-- Written by hand below the generated statements (keep it when regenerating): ledger entries are
-- kept as written, whatever code runs against the database. A correction is a new entry.
CREATE FUNCTION "refuse_ledger_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are immutable: record a correcting entry instead', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "balance_transactions_immutable" BEFORE UPDATE OR DELETE ON "balance_transactions" FOR EACH ROW EXECUTE FUNCTION "refuse_ledger_change"();--> statement-breakpoint
-- Orders paid before the ledger existed were paid under no store rates: they take the defaults
-- (5% + 0.50 EUR), which a store without rates pays; an operator who configured others corrects
-- a store's balance with ledger:adjust.
UPDATE "orders" AS "o" SET "fee_basis_points" = 500, "fee_fixed" = 50
WHERE "o"."status" <> 'pending' AND "o"."fee_basis_points" IS NULL AND EXISTS (SELECT 1 FROM "invoices" AS "i" WHERE "i"."order_id" = "o"."id");--> statement-breakpoint
-- Their entries, and those of refunds credited so far, as the code writes them (payments held
-- PAYOUT_HOLD_DAYS' default of 7 days), recorded in the order they happened; ids in the form of
-- server/ids.ts (the subquery names its row, so each row draws its own).
INSERT INTO "balance_transactions" ("id", "store_id", "livemode", "type", "amount", "source_type", "source_id", "description", "created_at", "available_on")
SELECT 'btx_' || CASE WHEN "e"."livemode" THEN 'live' ELSE 'test' END || '_' || (
  SELECT string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 1 + floor(random() * 62)::int, 1), '')
  FROM generate_series(1, 24 + 0 * length("e"."source_id") + 0 * "e"."n")
), "e"."store_id", "e"."livemode", "e"."type", "e"."amount", "e"."source_type", "e"."source_id", "e"."description", "e"."created_at", "e"."available_on"
FROM (
  SELECT "o"."store_id", "o"."livemode", "x"."n", "x"."type", "x"."amount", 'order' AS "source_type", "o"."id" AS "source_id", "x"."description",
    "i"."created_at", "i"."created_at" + interval '7 days' AS "available_on"
  FROM "orders" AS "o"
  JOIN "invoices" AS "i" ON "i"."order_id" = "o"."id"
  CROSS JOIN LATERAL (VALUES
    (1, 'payment', "o"."amount_total", 'Payment ' || "i"."number"),
    (2, 'tax', -"i"."amount_tax", 'VAT ' || "i"."number"),
    (3, 'fee', -least(("o"."amount_total"::bigint * "o"."fee_basis_points" + 5000) / 10000 + "o"."fee_fixed", "o"."amount_total" - "i"."amount_tax")::int, 'Fee 5% + 0.50 EUR on ' || "i"."number")
  ) AS "x"("n", "type", "amount", "description")
  WHERE "o"."status" <> 'pending'
  UNION ALL
  SELECT "r"."store_id", "r"."livemode", "x"."n", "x"."type", "x"."amount", 'refund', "r"."id", "x"."description", "c"."created_at", "c"."created_at"
  FROM "refunds" AS "r"
  JOIN "credit_notes" AS "c" ON "c"."refund_id" = "r"."id"
  CROSS JOIN LATERAL (VALUES
    (1, 'refund', -"c"."amount_total", 'Refund ' || "c"."number"),
    (2, 'tax', "c"."amount_tax", 'VAT ' || "c"."number")
  ) AS "x"("n", "type", "amount", "description")
  WHERE "r"."status" = 'succeeded'
) AS "e"
ORDER BY "e"."created_at", "e"."source_id", "e"."n";
