ALTER TABLE "subscription_charges" ADD COLUMN "checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "checked_at" timestamp with time zone;