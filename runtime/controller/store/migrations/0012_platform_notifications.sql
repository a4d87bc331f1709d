-- Notifications posted to the platform's notification manager (issue 27 item 6): kept for the
-- accounts they address and the application that sent them (routes/platform-notifications.ts).
CREATE TABLE "platform_notifications" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "platform_notifications_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"time" timestamp with time zone NOT NULL,
	"body" jsonb NOT NULL,
	"recipient_account" uuid,
	"recipient_path" text,
	"sender_instance" uuid,
	"sender_account" uuid
);
--> statement-breakpoint
CREATE INDEX "platform_notifications_seq_idx" ON "platform_notifications" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "platform_notifications_recipient_idx" ON "platform_notifications" USING btree ("recipient_path" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "platform_notifications_sender_idx" ON "platform_notifications" USING btree ("sender_instance");