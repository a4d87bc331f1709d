CREATE TABLE "tasks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"resource_id" uuid NOT NULL,
	"operation" text NOT NULL,
	"instance_id" uuid NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"body" text,
	"transaction_id" text NOT NULL,
	"identity_id" text,
	"info" text,
	"attempts" integer NOT NULL,
	"retry_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone,
	"state" text NOT NULL,
	"last_error" text,
	"created" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "tasks_due_idx" ON "tasks" USING btree ("state","retry_at");