-- Instance upgrades (issue 27): an upgrade under way and the resources as they were before it,
-- written with the migration to the new package and read back by a rollback.
CREATE TABLE "instance_upgrades" (
	"instance_id" uuid PRIMARY KEY NOT NULL,
	"from_package" uuid NOT NULL,
	"to_package" uuid NOT NULL,
	"transaction_id" text NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"subscriptions" text NOT NULL,
	"created" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upgrade_snapshots" (
	"instance_id" uuid NOT NULL,
	"resource_id" uuid NOT NULL,
	"type_id" text NOT NULL,
	"package_id" uuid,
	"status" text NOT NULL,
	"revision" integer NOT NULL,
	"modified" timestamp with time zone NOT NULL,
	"body" jsonb NOT NULL,
	"secrets" "bytea",
	CONSTRAINT "upgrade_snapshots_instance_id_resource_id_pk" PRIMARY KEY("instance_id","resource_id")
);
--> statement-breakpoint
ALTER TABLE "upgrade_snapshots" ADD CONSTRAINT "upgrade_snapshots_instance_id_instance_upgrades_instance_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instance_upgrades"("instance_id") ON DELETE cascade ON UPDATE no action;