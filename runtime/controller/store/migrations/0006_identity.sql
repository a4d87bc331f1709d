-- Account revocations (issue 15): every delete of an account, and every change of its status
-- (aps:disabled and back), gets a serial in commit order and a row here, in the transaction of
-- the change itself (a trigger, so no code path can forget it). Controller processes follow the
-- serial and drop what they cached about those accounts (auth/account-revocations.ts).
CREATE TABLE "revocation_clock" (
	"id" integer PRIMARY KEY NOT NULL,
	"last_serial" bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO "revocation_clock" ("id", "last_serial") VALUES (1, 0);
--> statement-breakpoint
CREATE TABLE "account_revocations" (
	"serial" bigint PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "account_revocations_at_idx" ON "account_revocations" USING btree ("at");
--> statement-breakpoint
-- The clock row is locked until the change commits, so serials are given in commit order: a
-- process that has seen serial N has seen every serial below it.
CREATE FUNCTION "record_account_revocation"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	next_serial bigint;
BEGIN
	UPDATE revocation_clock SET last_serial = last_serial + 1 WHERE id = 1 RETURNING last_serial INTO next_serial;
	INSERT INTO account_revocations (serial, account_id, reason) VALUES (next_serial, OLD.id, CASE WHEN TG_OP = 'DELETE' THEN 'deleted' ELSE NEW.status END);
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "resources_account_deleted" AFTER DELETE ON "resources" FOR EACH ROW WHEN (OLD.owner_account = OLD.id) EXECUTE FUNCTION "record_account_revocation"();
--> statement-breakpoint
CREATE TRIGGER "resources_account_status" AFTER UPDATE OF "status" ON "resources" FOR EACH ROW WHEN (OLD.owner_account = OLD.id AND OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION "record_account_revocation"();
--> statement-breakpoint
-- No resource is stored for an account that is gone (issue 15: a provisioning racing the delete
-- of its account would leave an orphan). A resource's owner account, and a new account's parent
-- (the account before it in its path), must exist: it is locked FOR KEY SHARE, as a foreign key
-- would, so a delete holding it FOR UPDATE (store/account-holdings.ts) waits for this insert to
-- commit and then sees the resource, or this insert waits for the delete and then refuses.
-- SQLSTATE AP401: the caller's account is gone (store/owner-account-error.ts).
CREATE FUNCTION "require_owner_account"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	owner uuid;
	parts text[];
BEGIN
	IF NEW.owner_account IS NULL THEN
		RETURN NEW;
	END IF;
	IF NEW.owner_account = NEW.id THEN
		parts := string_to_array(trim(both '/' from NEW.owner_path), '/');
		IF coalesce(array_length(parts, 1), 0) < 2 THEN
			RETURN NEW;
		END IF;
		owner := parts[array_length(parts, 1) - 1]::uuid;
	ELSE
		owner := NEW.owner_account;
	END IF;
	PERFORM 1 FROM resources WHERE id = owner FOR KEY SHARE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'the owner account % of resource % does not exist', owner, NEW.id USING ERRCODE = 'AP401';
	END IF;
	RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "resources_owner_account_exists" BEFORE INSERT ON "resources" FOR EACH ROW EXECUTE FUNCTION "require_owner_account"();
