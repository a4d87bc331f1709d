-- Package archives move out of the packages row into parts (issue 18): the embedded database
-- runs on the serving thread, and one statement carrying a whole archive held it for a few
-- hundred milliseconds. An archive stored before moves whole, as its part 0 (readers take parts
-- of any size).
CREATE TABLE "package_archive_parts" (
	"package_id" uuid NOT NULL,
	"part" integer NOT NULL,
	"bytes" "bytea" NOT NULL,
	CONSTRAINT "package_archive_parts_package_id_part_pk" PRIMARY KEY("package_id","part")
);
--> statement-breakpoint
INSERT INTO "package_archive_parts" ("package_id", "part", "bytes") SELECT "id", 0, "archive" FROM "packages";--> statement-breakpoint
ALTER TABLE "packages" DROP COLUMN "archive";
