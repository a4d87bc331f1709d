-- What an application may read while it provisions (issue 27): the resources a provisioning will link
-- to, its subscription and owner account, kept with the provisioning's intent until it is stored;
-- and the subscription of an instance's resources, found by index.
ALTER TABLE "provisioning_intents" ADD COLUMN "reaches" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
CREATE INDEX "provisioning_intents_instance_idx" ON "provisioning_intents" USING btree ("instance_id");--> statement-breakpoint
CREATE INDEX "resources_subscription_idx" ON "resources" USING btree ("subscription","instance_id") WHERE "resources"."subscription" is not null;