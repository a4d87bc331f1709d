-- Application instances as callers (issue 16, item 1): an instance reaches the resources it
-- serves and the accounts they belong to. Both questions are index probes on (instance, owner).
CREATE INDEX "resources_instance_owner_idx" ON "resources" USING btree ("instance_id","owner_account");
