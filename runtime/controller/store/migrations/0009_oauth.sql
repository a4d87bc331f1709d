-- OAuth 1.0a application authentication (issue 16, item 6): an instance may have a consumer key
-- and a sealed secret; nonces seen are kept while their timestamp is accepted, so a signed request
-- is taken once across every controller process sharing this database.
CREATE TABLE "oauth_nonces" (
	"consumer_key" text NOT NULL,
	"nonce" text NOT NULL,
	"expires" timestamp with time zone NOT NULL,
	CONSTRAINT "oauth_nonces_consumer_key_nonce_pk" PRIMARY KEY("consumer_key","nonce")
);
--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "oauth_key" text;--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "oauth_secret" "bytea";--> statement-breakpoint
CREATE INDEX "oauth_nonces_expires_idx" ON "oauth_nonces" USING btree ("expires");--> statement-breakpoint
ALTER TABLE "instances" ADD CONSTRAINT "instances_oauth_key_unique" UNIQUE("oauth_key");
