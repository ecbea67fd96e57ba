ALTER TABLE "order_lines" ALTER COLUMN "tax_rate" SET DATA TYPE numeric(5, 2);--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "tax_mode" text DEFAULT 'product_rate' NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "tax_category" text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD COLUMN "amount_tax" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD COLUMN "tax_rate" numeric(5, 2);--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD COLUMN "tax_mode" text DEFAULT 'product_rate' NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD COLUMN "tax_category" text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD COLUMN "tax_inclusive" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD COLUMN "customer_details" json;--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD COLUMN "tax_country" text;--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD COLUMN "tax_treatment" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "tax_mode" text DEFAULT 'product_rate' NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "tax_category" text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "tax_inclusive" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "customer_details" json;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "tax_country" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "tax_treatment" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "tax_evidence" json;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "evidence_conflict" boolean;--> statement-breakpoint
ALTER TABLE "order_lines" ADD COLUMN "tax_category" text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "customer_details" json;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "tax_country" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "tax_treatment" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "tax_evidence" json;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "evidence_conflict" boolean;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "tax_mode" text DEFAULT 'product_rate' NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "customer_details" json;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "tax_country" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "tax_treatment" text;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD COLUMN "customer_details" json;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD COLUMN "tax_country" text;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD COLUMN "tax_treatment" text;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD COLUMN "tax_note" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "customer_details" json;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "tax_country" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "tax_treatment" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "tax_note" text;--> statement-breakpoint
CREATE INDEX "credit_notes_issued_idx" ON "credit_notes" USING btree ("livemode","created_at");--> statement-breakpoint
CREATE INDEX "invoices_issued_idx" ON "invoices" USING btree ("livemode","created_at");--> statement-breakpoint
ALTER TABLE "stores" ADD CONSTRAINT "stores_tax_mode_check" CHECK ("stores"."tax_mode" in ('product_rate', 'buyer_country'));--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_tax_category_check" CHECK ("products"."tax_category" in ('standard', 'ebook', 'enewspaper'));--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD CONSTRAINT "subscription_checkouts_tax_mode_check" CHECK ("subscription_checkouts"."tax_mode" in ('product_rate', 'buyer_country'));--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD CONSTRAINT "subscription_checkouts_tax_category_check" CHECK ("subscription_checkouts"."tax_category" in ('standard', 'ebook', 'enewspaper'));--> statement-breakpoint
ALTER TABLE "subscription_checkouts" ADD CONSTRAINT "subscription_checkouts_tax_treatment_check" CHECK ("subscription_checkouts"."tax_treatment" in ('vat', 'reverse_charge', 'outside_eu'));--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_tax_mode_check" CHECK ("subscriptions"."tax_mode" in ('product_rate', 'buyer_country'));--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_tax_category_check" CHECK ("subscriptions"."tax_category" in ('standard', 'ebook', 'enewspaper'));--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_tax_treatment_check" CHECK ("subscriptions"."tax_treatment" in ('vat', 'reverse_charge', 'outside_eu'));--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_tax_category_check" CHECK ("order_lines"."tax_category" in ('standard', 'ebook', 'enewspaper'));--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_tax_treatment_check" CHECK ("orders"."tax_treatment" in ('vat', 'reverse_charge', 'outside_eu'));--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_tax_mode_check" CHECK ("checkout_sessions"."tax_mode" in ('product_rate', 'buyer_country'));--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_tax_treatment_check" CHECK ("checkout_sessions"."tax_treatment" in ('vat', 'reverse_charge', 'outside_eu'));--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_tax_treatment_check" CHECK ("credit_notes"."tax_treatment" in ('vat', 'reverse_charge', 'outside_eu'));--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_tax_treatment_check" CHECK ("invoices"."tax_treatment" in ('vat', 'reverse_charge', 'outside_eu'));