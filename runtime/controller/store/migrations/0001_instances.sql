CREATE TABLE "instances" (
	"id" uuid PRIMARY KEY NOT NULL,
	"package_id" uuid NOT NULL,
	"endpoint" text NOT NULL,
	"endpoint_ca" text,
	"root_service" text NOT NULL,
	"root_resource" uuid,
	"cert_fingerprint" text NOT NULL,
	"status" text NOT NULL,
	"created" timestamp with time zone NOT NULL,
	CONSTRAINT "instances_cert_fingerprint_unique" UNIQUE("cert_fingerprint")
);
