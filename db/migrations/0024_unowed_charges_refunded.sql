-- A charge taken after its subscription was canceled is now paid back by refunding its order.
-- One still being paid back the old way cannot be carried over (its refund went under another
-- gateway key): the previous version must finish it first.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM "subscription_charges" WHERE "status" = 'refund_due') THEN
    RAISE EXCEPTION 'A subscription charge is still being paid back (status refund_due): run the previous version until its worker has finished, then upgrade.';
  END IF;
END $$;--> statement-breakpoint
-- Those paid back already become what they are now: a succeeded charge with an order refunded in
-- full by a succeeded refund (no documents: none were issued for them then). Ids in the form of
-- server/ids.ts.
WITH "picked" AS (
  SELECT "c".*, 'ord_' || CASE WHEN "c"."livemode" THEN 'live' ELSE 'test' END || '_' || (
    SELECT string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 1 + floor(random() * 62)::int, 1), '')
    FROM generate_series(1, 24 + 0 * length("c"."id"))
  ) AS "new_order_id"
  FROM "subscription_charges" AS "c"
  WHERE "c"."status" = 'refunded' AND "c"."order_id" IS NULL
), "written" AS (
  INSERT INTO "orders" ("id", "store_id", "livemode", "status", "customer_id", "customer_email", "amount_subtotal", "amount_tax", "amount_total", "amount_refunded", "card_brand", "card_last4", "gateway_payment_id", "created_at", "paid_at", "language", "invoice_id", "billing_reason", "subscription_id")
  SELECT "p"."new_order_id", "p"."store_id", "p"."livemode", 'refunded', "s"."customer_id", "s"."customer_email", "p"."amount", 0, "p"."amount", "p"."amount",
    "p"."card_brand", "p"."card_last4", "p"."gateway_payment_id", coalesce("p"."settled_at", "p"."created_at"), coalesce("p"."settled_at", "p"."created_at"),
    "s"."language", NULL, CASE WHEN "p"."cycle" = 1 THEN 'subscription_create' ELSE 'subscription_cycle' END, "p"."subscription_id"
  FROM "picked" AS "p"
  JOIN "subscriptions" AS "s" ON "s"."id" = "p"."subscription_id"
)
UPDATE "subscription_charges" AS "c" SET "order_id" = "p"."new_order_id" FROM "picked" AS "p" WHERE "c"."id" = "p"."id";--> statement-breakpoint
INSERT INTO "order_lines" ("id", "order_id", "position", "product_id", "price_id", "description", "quantity", "unit_amount", "amount_subtotal", "amount_tax", "amount_total", "tax_rate", "tax_inclusive", "has_license")
SELECT "c"."order_id" || '_l0', "c"."order_id", 0, (SELECT "p"."id" FROM "products" AS "p" WHERE "p"."id" = "s"."product_id"), "s"."price_id",
  "s"."plan_name", 1, "c"."amount", "c"."amount", 0, "c"."amount", 0, false, false
FROM "subscription_charges" AS "c"
JOIN "subscriptions" AS "s" ON "s"."id" = "c"."subscription_id"
WHERE "c"."status" = 'refunded' AND NOT EXISTS (SELECT 1 FROM "order_lines" AS "ol" WHERE "ol"."order_id" = "c"."order_id");--> statement-breakpoint
INSERT INTO "refunds" ("id", "store_id", "livemode", "order_id", "amount", "status", "created_at")
SELECT 're_' || CASE WHEN "c"."livemode" THEN 'live' ELSE 'test' END || '_' || (
    SELECT string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 1 + floor(random() * 62)::int, 1), '')
    FROM generate_series(1, 24 + 0 * length("c"."id"))
  ), "c"."store_id", "c"."livemode", "c"."order_id", "c"."amount", 'succeeded', coalesce("c"."settled_at", "c"."created_at")
FROM "subscription_charges" AS "c"
WHERE "c"."status" = 'refunded' AND NOT EXISTS (SELECT 1 FROM "refunds" AS "r" WHERE "r"."order_id" = "c"."order_id");--> statement-breakpoint
UPDATE "subscription_charges" SET "status" = 'succeeded' WHERE "status" = 'refunded';--> statement-breakpoint
ALTER TABLE "subscription_charges" DROP CONSTRAINT "subscription_charges_status_check";--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_status_check" CHECK ("subscription_charges"."status" in ('processing', 'succeeded', 'declined', 'unknown', 'requires_action'));
