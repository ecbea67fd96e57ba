ALTER TABLE "stores" ADD COLUMN "logo_url" text;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "terms_url" text;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "privacy_url" text;