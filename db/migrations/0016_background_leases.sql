ALTER TABLE "subscription_charges" ADD COLUMN "leased_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "leased_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payment_attempts" ADD COLUMN "leased_until" timestamp with time zone;