ALTER TABLE "order_lines" ADD COLUMN "download_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_download_count_check" CHECK ("order_lines"."download_count" >= 0);--> statement-breakpoint
UPDATE "order_lines" SET "download_count" = "counted"."n" FROM (SELECT "order_line_id", count(*)::int AS "n" FROM "file_downloads" GROUP BY "order_line_id") AS "counted" WHERE "counted"."order_line_id" = "order_lines"."id";
