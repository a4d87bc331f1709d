CREATE TABLE "staged_subscriptions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"subscriber_id" uuid NOT NULL,
	"event" text NOT NULL,
	"source_type" text,
	"source_id" uuid,
	"relation" text,
	"handler" text NOT NULL,
	"created" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "staged_subscriptions_subscriber_idx" ON "staged_subscriptions" USING btree ("subscriber_id");