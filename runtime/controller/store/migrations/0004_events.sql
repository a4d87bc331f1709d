CREATE TABLE "event_clock" (
	"id" integer PRIMARY KEY NOT NULL,
	"last_serial" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notifications_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"event_key" uuid NOT NULL,
	"serial" bigint,
	"subscription_id" uuid NOT NULL,
	"subscriber_id" uuid NOT NULL,
	"event" text NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"source_id" uuid NOT NULL,
	"source_type" text NOT NULL,
	"relation" text,
	"target_id" uuid,
	"state" text NOT NULL,
	"attempts" integer NOT NULL,
	"next_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
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
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_subscriber_id_resources_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."resources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notifications_unsequenced_idx" ON "notifications" USING btree ("id") WHERE "notifications"."serial" is null;--> statement-breakpoint
CREATE INDEX "notifications_pending_idx" ON "notifications" USING btree ("subscriber_id","serial") WHERE "notifications"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "notifications_due_idx" ON "notifications" USING btree ("serial") WHERE "notifications"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "subscriptions_type_idx" ON "subscriptions" USING btree ("event","source_type");--> statement-breakpoint
CREATE INDEX "subscriptions_source_idx" ON "subscriptions" USING btree ("source_id");--> statement-breakpoint
CREATE INDEX "subscriptions_subscriber_idx" ON "subscriptions" USING btree ("subscriber_id");--> statement-breakpoint
INSERT INTO "event_clock" ("id", "last_serial") VALUES (1, 0) ON CONFLICT DO NOTHING;
