-- Consistency with the application (issue 15, items 9-14).
-- A singular relation has at most one link, and the database says so: links of singular
-- relations carry `singular` and a partial unique index on (source, relation). Rows written
-- before this migration are false (the database cannot tell their relation's kind); a relink
-- replaces them.
ALTER TABLE "links" ADD COLUMN "singular" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX "links_singular_idx" ON "links" USING btree ("source_id","relation") WHERE "links"."singular";
--> statement-breakpoint
-- One configure (or unprovision) of a resource at a time, across processes, without holding a
-- transaction open over the call to the application: a claim with a lease, taken before the
-- revision check and the forward, dropped in the commit that stores the result.
CREATE TABLE "resource_claims" (
	"resource_id" uuid PRIMARY KEY NOT NULL,
	"holder" uuid NOT NULL,
	"operation" text NOT NULL,
	"until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "resource_claims" ADD CONSTRAINT "resource_claims_resource_id_resources_id_fk" FOREIGN KEY ("resource_id") REFERENCES "public"."resources"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- A provisioning the application may have carried out but the controller has not stored yet:
-- written (committed) before the call, removed by the statement that stores the resource.
-- Whatever is left after its lease is undone at the application (intents/intent-reconciler.ts).
CREATE TABLE "provisioning_intents" (
	"resource_id" uuid PRIMARY KEY NOT NULL,
	"type_id" text NOT NULL,
	"instance_id" uuid NOT NULL,
	"transaction_id" text NOT NULL,
	"operation" text NOT NULL,
	"created" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text
);
--> statement-breakpoint
CREATE INDEX "provisioning_intents_due_idx" ON "provisioning_intents" USING btree ("lease_until");
--> statement-breakpoint
-- No link to a resource that is gone or being unprovisioned, whichever statement writes it. FOR
-- SHARE conflicts with the status change of an unprovisioning: a link being written holds the
-- unprovisioning back until it commits (and the unprovisioning then sees it), and a link written
-- after the status change waits for it and is refused. The error code is the controller's own
-- (store/link-target-error.ts turns it into a 409).
CREATE FUNCTION "check_link_target"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM 1 FROM resources WHERE id = NEW.target_id AND status <> 'aps:unprovisioning' FOR SHARE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'link target % does not exist or is being unprovisioned', NEW.target_id USING ERRCODE = 'AP409';
	END IF;
	RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "links_target_live" BEFORE INSERT OR UPDATE OF "target_id" ON "links" FOR EACH ROW EXECUTE FUNCTION "check_link_target"();
