CREATE TABLE "simulator_charges" (
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"payment_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"failure_code" text,
	"amount" integer NOT NULL,
	"description" text NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"recurring_id" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "simulator_charges_payment_id_unique" UNIQUE("payment_id")
);
--> statement-breakpoint
CREATE TABLE "simulator_recurring" (
	"id" text PRIMARY KEY NOT NULL,
	"scenario" text NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"canceled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "simulator_refunds" (
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"refund_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"amount" integer NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "simulator_refunds_refund_id_unique" UNIQUE("refund_id")
);
--> statement-breakpoint
CREATE INDEX "simulator_charges_recurring_idx" ON "simulator_charges" USING btree ("recurring_id");--> statement-breakpoint
CREATE INDEX "simulator_refunds_payment_idx" ON "simulator_refunds" USING btree ("payment_id");