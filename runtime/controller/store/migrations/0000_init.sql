CREATE TABLE "links" (
	"source_id" uuid NOT NULL,
	"relation" text NOT NULL,
	"target_id" uuid NOT NULL,
	CONSTRAINT "links_source_id_relation_target_id_pk" PRIMARY KEY("source_id","relation","target_id")
);
--> statement-breakpoint
CREATE TABLE "navigation" (
	"id" uuid PRIMARY KEY NOT NULL,
	"body" jsonb NOT NULL,
	"created" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "packages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"name" text NOT NULL,
	"version" text NOT NULL,
	"release" text NOT NULL,
	"archive" "bytea" NOT NULL,
	"imported" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "resources" (
	"id" uuid PRIMARY KEY NOT NULL,
	"type_id" text NOT NULL,
	"status" text NOT NULL,
	"revision" integer NOT NULL,
	"created" timestamp with time zone NOT NULL,
	"modified" timestamp with time zone NOT NULL,
	"owner_account" uuid,
	"owner_path" text NOT NULL,
	"subscription" uuid,
	"package_id" uuid,
	"body" jsonb NOT NULL,
	"secrets" "bytea",
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "resources_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1)
);
--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_source_id_resources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."resources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_target_id_resources_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."resources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "links_target_idx" ON "links" USING btree ("target_id");--> statement-breakpoint
CREATE INDEX "resources_type_idx" ON "resources" USING btree ("type_id");--> statement-breakpoint
CREATE INDEX "resources_owner_idx" ON "resources" USING btree ("owner_account");--> statement-breakpoint
CREATE INDEX "resources_owner_path_idx" ON "resources" USING btree ("owner_path" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "resources_seq_idx" ON "resources" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "resources_body_idx" ON "resources" USING gin ("body" jsonb_path_ops);