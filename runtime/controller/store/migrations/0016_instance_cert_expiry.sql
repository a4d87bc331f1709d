-- When each instance's certificate expires (issue 32), for the console and the instances API; kept at install and
-- re-issue. Instances installed before have none (their certificate's expiry was not kept).
ALTER TABLE "instances" ADD COLUMN "cert_not_after" timestamp with time zone;