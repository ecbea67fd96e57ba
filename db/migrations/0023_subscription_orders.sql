ALTER TABLE "invoices" DROP CONSTRAINT "invoices_documents_one_payment";--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD COLUMN "order_id" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "billing_reason" text DEFAULT 'purchase' NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "subscription_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_charges_order_unique" ON "subscription_charges" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "orders_subscription_list_idx" ON "orders" USING btree ("store_id","livemode","subscription_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_billing_reason_list_idx" ON "orders" USING btree ("store_id","livemode","billing_reason","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_billing_reason_check" CHECK ("orders"."billing_reason" in ('purchase', 'subscription_create', 'subscription_cycle'));--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_subscription_whole" CHECK (("orders"."billing_reason" = 'purchase') = ("orders"."subscription_id" is null));
--> statement-breakpoint
-- Every paid subscription charge becomes an order, as a charge paid from now on does: ids in the
-- form of server/ids.ts (`ord_<env>_` and 24 base62 characters; the subquery names its row, so
-- each row draws its own).
UPDATE "subscription_charges" AS "c" SET "order_id" = 'ord_' || CASE WHEN "c"."livemode" THEN 'live' ELSE 'test' END || '_' || (
  SELECT string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 1 + floor(random() * 62)::int, 1), '')
  FROM generate_series(1, 24 + 0 * length("c"."id"))
) WHERE ("c"."status" = 'succeeded' OR EXISTS (SELECT 1 FROM "invoices" AS "i" WHERE "i"."subscription_charge_id" = "c"."id")) AND "c"."order_id" IS NULL;--> statement-breakpoint
INSERT INTO "orders" ("id", "store_id", "livemode", "status", "customer_id", "customer_email", "amount_subtotal", "amount_tax", "amount_total", "amount_refunded", "card_brand", "card_last4", "gateway_payment_id", "created_at", "paid_at", "language", "invoice_id", "billing_reason", "subscription_id")
SELECT "c"."order_id", "c"."store_id", "c"."livemode", 'paid', coalesce("i"."customer_id", "s"."customer_id"), coalesce("i"."customer_email", "s"."customer_email"),
  coalesce("i"."amount_subtotal", "c"."amount"), coalesce("i"."amount_tax", 0), coalesce("i"."amount_total", "c"."amount"), 0,
  "c"."card_brand", "c"."card_last4", "c"."gateway_payment_id",
  coalesce("i"."created_at", "c"."settled_at", "c"."created_at"), coalesce("i"."created_at", "c"."settled_at", "c"."created_at"),
  coalesce("i"."language", "s"."language"), "i"."id", CASE WHEN "c"."cycle" = 1 THEN 'subscription_create' ELSE 'subscription_cycle' END, "c"."subscription_id"
FROM "subscription_charges" AS "c"
JOIN "subscriptions" AS "s" ON "s"."id" = "c"."subscription_id"
LEFT JOIN "invoices" AS "i" ON "i"."subscription_charge_id" = "c"."id"
WHERE "c"."order_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "orders" AS "o" WHERE "o"."id" = "c"."order_id");--> statement-breakpoint
-- The lines as invoiced; a charge without an invoice (none was issued for it) has one line for its plan.
INSERT INTO "order_lines" ("id", "order_id", "position", "product_id", "price_id", "description", "quantity", "unit_amount", "amount_subtotal", "amount_tax", "amount_total", "tax_rate", "tax_inclusive", "has_license")
SELECT "c"."order_id" || '_l' || ("l"."n" - 1), "c"."order_id", "l"."n" - 1,
  (SELECT "p"."id" FROM "products" AS "p" WHERE "p"."id" = "s"."product_id"), "s"."price_id",
  "l"."line"->>'description', ("l"."line"->>'quantity')::int, ("l"."line"->>'unit_amount')::int, ("l"."line"->>'amount_subtotal')::int,
  ("l"."line"->>'amount_tax')::int, ("l"."line"->>'amount_total')::int, ("l"."line"->>'tax_rate')::int, false, false
FROM "subscription_charges" AS "c"
JOIN "subscriptions" AS "s" ON "s"."id" = "c"."subscription_id"
JOIN "invoices" AS "i" ON "i"."subscription_charge_id" = "c"."id"
CROSS JOIN LATERAL json_array_elements("i"."lines") WITH ORDINALITY AS "l"("line", "n")
WHERE "c"."order_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "order_lines" AS "ol" WHERE "ol"."order_id" = "c"."order_id");--> statement-breakpoint
INSERT INTO "order_lines" ("id", "order_id", "position", "product_id", "price_id", "description", "quantity", "unit_amount", "amount_subtotal", "amount_tax", "amount_total", "tax_rate", "tax_inclusive", "has_license")
SELECT "c"."order_id" || '_l0', "c"."order_id", 0, (SELECT "p"."id" FROM "products" AS "p" WHERE "p"."id" = "s"."product_id"), "s"."price_id",
  "s"."plan_name", 1, "c"."amount", "c"."amount", 0, "c"."amount", 0, false, false
FROM "subscription_charges" AS "c"
JOIN "subscriptions" AS "s" ON "s"."id" = "c"."subscription_id"
WHERE "c"."order_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "order_lines" AS "ol" WHERE "ol"."order_id" = "c"."order_id");--> statement-breakpoint
-- Invoices are immutable to the service; this one correction names the order each documents.
ALTER TABLE "invoices" DISABLE TRIGGER "invoices_immutable";--> statement-breakpoint
UPDATE "invoices" AS "i" SET "order_id" = "c"."order_id" FROM "subscription_charges" AS "c" WHERE "c"."id" = "i"."subscription_charge_id" AND "c"."order_id" IS NOT NULL AND "i"."order_id" IS NULL;--> statement-breakpoint
ALTER TABLE "invoices" ENABLE TRIGGER "invoices_immutable";--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_documents_one_payment" CHECK ("invoices"."order_id" is not null);--> statement-breakpoint
-- The charges point at orders that exist now.
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;
