ALTER TABLE "memberships" ADD COLUMN "accepted_at" timestamp with time zone;--> statement-breakpoint
UPDATE "memberships" SET "accepted_at" = "created_at";