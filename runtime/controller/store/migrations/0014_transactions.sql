-- Transaction ids as identifiers (issue 28): an APS-Transaction-ID is a random UUID, and what it stands for
-- (the resource being provisioned, its type and instance; during an install the new certificate's fingerprint
-- and the OAuth key with its sealed secret) is this row, read by any controller process until it expires.
CREATE TABLE "transactions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"resource_id" uuid NOT NULL,
	"type_id" text NOT NULL,
	"instance_id" uuid NOT NULL,
	"fingerprint" text,
	"oauth_key" text,
	"oauth_secret" "bytea",
	"expires" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "transactions_expires_idx" ON "transactions" USING btree ("expires");