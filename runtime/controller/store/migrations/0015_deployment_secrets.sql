-- Keys shared by the controllers of one deployment (issue 30): the token key, the encryption key, the CA
-- and the controller's client certificate live here, one row each, sealed with AES-256-GCM under a key derived
-- from the operator's deployment key, so that every controller on this database signs, opens and trusts alike
-- and a new node joins from the database rather than from a copy of another node's data folder.
CREATE TABLE "deployment_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"sealed" "bytea" NOT NULL,
	"created" timestamp with time zone DEFAULT now() NOT NULL
);
